"""Weights written between two optimizer steps, and moved back toward older values
(``run.observed.rewritten_weights``, read by ``nndebug.rules.rewritten_weights``).

Between one ``optimizer.step()`` and the next only the loop can change the weights. Most
loops never do; a few do on purpose and a little (weight clipping, a max-norm or pruning
mask, all of them at most a share of one update). The harmful writes put OTHER weights into
the model: an exponential moving average copied in to save or evaluate it and never
swapped back (harubaru/waifu-diffusion#31), a target network synced into the online one
instead of the other way round, an old checkpoint loaded mid-run. Each such write moves
the weights by many updates at once, back toward where they were steps before, and the
progress made since is thrown away: the run trains at the pace of the lagging copy.

A step pre-hook and a step post-hook on the optimizer copy ``SAMPLED`` fixed entries of one
parameter it holds (the first with enough entries; a strided view of its storage, so a
``p.data = ...`` that swaps the storage is not followed) into two preallocated rows, on
each of the first ``WINDOW_STEPS`` optimizer steps: one small device copy per hook, no
host read.
When findings are asked for, the rows come to the host once: a write is an entry that
changed between a step's post-hook and the next step's pre-hook; it is compared with the
optimizer's own updates (the median distance one step moves the sampled entries) and with
the weights' path (how much of the distance travelled since the last write, or since
``LOOKBACK_STEPS`` steps, the write took back). One row per write:
``(step, jump in median updates, distance left to the earlier weights / distance travelled
from them)``. The hooks stop sampling when the window is full and go when the monitor closes.
"""
WINDOW_STEPS = 400           # [design] optimizer steps followed: a save or sync every 10-100
                             # steps shows several times in them; an MLP step (~1 ms) pays
                             # two ~10 us copies
SAMPLED = 16                 # [design] entries of the followed parameter compared: any write
                             # of the whole tensor changes them, clipping changes few
LOOKBACK_STEPS = 50          # [design] steps back the first write is compared with when no
                             # earlier write is known
ROWS_KEPT = 32               # [design] writes kept, the largest jumps first (clipping that
                             # writes every step must not crowd out a copy every 25 steps)


def _numpy_dtypes():
    import torch
    return (torch.float32, torch.float64, torch.float16)


class RewrittenWeights:
    """Follows one optimizer-held parameter around each optimizer step (module doc)."""

    def __init__(self, adapter, observed, optimizer, current_step, on_error):
        self.observed, self.optimizer = observed, optimizer
        self.current_step, self.on_error = current_step, on_error
        self._handles, self._steps, self._read_at = [], [], 0
        self._sampling = True
        self.enabled = adapter.framework == "torch" and \
            hasattr(optimizer, "register_step_pre_hook") and \
            hasattr(optimizer, "register_step_post_hook")
        if not self.enabled:
            return
        try:
            import torch
            followed = next((p for group in optimizer.param_groups for p in group["params"]
                             if p.requires_grad and p.is_floating_point() and
                             p.numel() >= SAMPLED), None)
            if followed is None:
                self.enabled = False
                return
            # a view of SAMPLED entries spread over the tensor (it shares the parameter's
            # storage, which the optimizer and any in-place write update)
            # (one more than an even spread, so that the entries fall in different columns:
            # a column of weights that never moves - a pixel always 0 - is no sample)
            stride = max(1, followed.numel() // SAMPLED)
            if (SAMPLED - 1) * (stride + 1) < followed.numel():
                stride += 1
            self._view = followed.detach().reshape(-1)[::stride][:SAMPLED]
            shape = (WINDOW_STEPS, SAMPLED)
            self._before = torch.empty(shape, dtype=followed.dtype, device=followed.device)
            self._after = torch.empty(shape, dtype=followed.dtype, device=followed.device)
            if followed.device.type == "cpu" and followed.dtype in _numpy_dtypes():
                # on the CPU the same entries as NumPy views: a row copied there costs about
                # 1 us, where torch's indexing and copy_ dispatch cost 20-30 us a hook
                self._view = self._view.numpy()
                self._before, self._after = self._before.numpy(), self._after.numpy()
            self._handles = [optimizer.register_step_pre_hook(self._before_step),
                             optimizer.register_step_post_hook(self._after_step)]
        except Exception as error:        # an optimizer without param_groups or hooks
            self.enabled = False
            self._remove()
            on_error(error)

    def _sample(self, rows):
        rows[len(self._steps)] = self._view

    def _before_step(self, optimizer, args, kwargs):
        if not self._sampling:
            return
        try:
            self._sample(self._before)
        except Exception as error:        # never break the user's step
            self._stop(error)

    def _after_step(self, optimizer, args, kwargs):
        if not self._sampling:
            return
        try:
            self._sample(self._after)
            self._steps.append(int(self.current_step()))
        except Exception as error:
            self._stop(error)
            return
        if len(self._steps) >= WINDOW_STEPS:
            self._sampling = False          # the window is full

    # The hooks are never removed from inside themselves: torch iterates over the
    # optimizer's hooks while they run, and removing one there raised "OrderedDict mutated
    # during iteration" out of the user's optimizer.step(). Once sampling stops they return
    # at once, until the monitor closes.
    def _stop(self, error):
        self.enabled = self._sampling = False
        self.on_error(error)

    def _remove(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def close(self):
        """The monitor closes: the hooks go."""
        self._remove()

    def read(self):
        """The sampled rows to the host (once per new steps), as one row per write."""
        steps = len(self._steps)
        if not self.enabled or steps < 3 or steps == self._read_at:
            return
        try:
            before = _host_rows(self._before[:steps])
            after = _host_rows(self._after[:steps])
            self.observed.rewritten_weights = weight_writes(before, after, self._steps)
            self._read_at = steps
        except Exception as error:
            self.on_error(error)


def _host_rows(rows):
    """Sampled rows (a torch tensor on any device, or already a NumPy array) as float64."""
    import numpy as np
    if isinstance(rows, np.ndarray):
        return rows.astype(np.float64)
    return rows.double().cpu().numpy()


def weight_writes(before, after, steps):
    """[(step, jump in median updates, share of the travelled distance left)] for each
    optimizer step whose sampled entries (``before[k]``) differ from what the previous
    step left (``after[k - 1]``). NumPy rows of the sampled entries, one per step."""
    import numpy as np
    with np.errstate(invalid="ignore", over="ignore"):   # weights blown to inf/NaN: not read
        return _writes(np, before, after, steps)


def _writes(np, before, after, steps):
    updates = np.linalg.norm(after - before, axis=1)
    moving = updates[np.isfinite(updates) & (updates > 0)]
    if not len(moving):
        return []
    typical = float(np.median(moving))
    rows, last_write = [], None
    for k in range(1, len(before)):
        jump = float(np.linalg.norm(before[k] - after[k - 1]))
        if not jump > 0 or not np.isfinite(jump):
            continue
        start = last_write if last_write is not None else max(0, k - LOOKBACK_STEPS)
        travelled = float(np.linalg.norm(after[k - 1] - before[start]))
        left = float(np.linalg.norm(before[k] - before[start]))
        rows.append((int(steps[k - 1]), jump / typical,
                     left / travelled if travelled > 0 else float("inf")))
        last_write = k
    return sorted(sorted(rows, key=lambda row: -row[1])[:ROWS_KEPT])
