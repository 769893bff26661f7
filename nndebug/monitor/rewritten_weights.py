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
parameter it holds (the first with enough entries; a strided view of its storage, built
again when a ``p.data = ...`` swaps the storage) into two preallocated rows, on
each of the first ``WINDOW_STEPS`` optimizer steps: one small device copy per hook, no
host read.
When findings are asked for, the rows come to the host once: a write is an entry that
changed between a step's post-hook and the next step's pre-hook; it is compared with the
optimizer's own updates (the median distance one step moves the sampled entries) and with
the weights' path (how much of the distance travelled since the last write, or since
``LOOKBACK_STEPS`` steps, the write took back). One row per write:
``(step, jump in median updates, distance left to the earlier weights / distance travelled
from them, size of the written entries / size of the first step's)``: a fresh draw of the
weights has the size of the first one (real-bug batch 143), an average that shrinks them
does not. After the window the same rows go on in a ring of ``WINDOW_STEPS`` more, so the
latest steps are always followed too: a copy written into the model every few hundred
steps from some point on (an EMA whose warm-up kept it close to the live weights until
then: real-bug batch 175, writes from step 600 of 1,500) shows there, at a memory that
stays bounded however long the run. The hooks go when the monitor closes.
"""
import collections

WINDOW_STEPS = 400           # [design] optimizer steps followed from the start, and again
                             # the latest ones: a save or sync every 10-100 steps shows
                             # several times in each; an MLP step (~1 ms) pays two ~10 us
                             # copies (on the CPU two ~1 us NumPy copies)
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
        self._ring_steps = collections.deque(maxlen=WINDOW_STEPS)   # the latest steps after
        self._ring_count = 0      # the window, and how many were sampled there in all
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
            self._followed = followed
            self._kind = (followed.dtype, followed.device)
            shape = (WINDOW_STEPS, SAMPLED)
            self._before, self._after, self._ring_before, self._ring_after = (
                torch.empty(shape, dtype=followed.dtype, device=followed.device)
                for _ in range(4))
            self._as_numpy = followed.device.type == "cpu" and \
                followed.dtype in _numpy_dtypes()
            if self._as_numpy:
                # on the CPU the same entries as NumPy views: a row copied there costs about
                # 1 us, where torch's indexing and copy_ dispatch cost 20-30 us a hook
                self._before, self._after, self._ring_before, self._ring_after = (
                    rows.numpy() for rows in (self._before, self._after, self._ring_before,
                                              self._ring_after))
            self._follow_storage()
            self._handles = [optimizer.register_step_pre_hook(self._before_step),
                             optimizer.register_step_post_hook(self._after_step)]
        except Exception as error:        # an optimizer without param_groups or hooks
            self.enabled = False
            self._remove()
            on_error(error)

    def _follow_storage(self):
        """The sampled entries as a view of the parameter's current storage. Rebuilt when a
        ``p.data = ...`` swaps the storage (real-bug batch 106: weights quantized into the
        parameter in each forward pass), so that such writes are followed too."""
        followed = self._followed
        stride = max(1, followed.numel() // SAMPLED)
        if (SAMPLED - 1) * (stride + 1) < followed.numel():
            stride += 1
        view = followed.detach().reshape(-1)[::stride][:SAMPLED]
        self._view = view.numpy() if self._as_numpy else view
        self._storage = followed.data_ptr()

    def _sample(self, rows, ring):
        if self._followed.data_ptr() != self._storage:   # ~0.1 us a hook
            if (self._followed.dtype, self._followed.device) != self._kind:
                self._sampling = False     # moved or cast (p.data = p.data.half()): the
                return                     # rows no longer compare; the sampling ends here
            self._follow_storage()
        if self._in_window():
            rows[len(self._steps)] = self._view
        else:                              # after the window: the ring of the latest steps
            ring[self._ring_count % WINDOW_STEPS] = self._view

    def _in_window(self):
        """Still in the first WINDOW_STEPS optimizer steps (after them: the ring)."""
        return len(self._steps) < WINDOW_STEPS

    def _before_step(self, optimizer, args, kwargs):
        if not self._sampling:
            return
        try:
            self._sample(self._before, self._ring_before)
        except Exception as error:        # never break the user's step
            self._stop(error)

    def _after_step(self, optimizer, args, kwargs):
        if not self._sampling:
            return
        try:
            self._sample(self._after, self._ring_after)
            if self._in_window():
                self._steps.append(int(self.current_step()))
            else:
                self._ring_steps.append(int(self.current_step()))
                self._ring_count += 1
        except Exception as error:
            self._stop(error)

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
        """The sampled rows to the host (once per new steps), as one row per write: the
        window's, then the ring's (the latest steps, oldest first)."""
        steps, later = len(self._steps), self._ring_count
        if not self.enabled or steps < 3 or steps + later == self._read_at:
            return
        try:
            before = _host_rows(self._before[:steps])
            after = _host_rows(self._after[:steps])
            writes = weight_writes(before, after, self._steps)
            if len(self._ring_steps) >= 3:
                kept = len(self._ring_steps)           # oldest first: the ring's next slot
                order = [(later - kept + i) % WINDOW_STEPS for i in range(kept)]
                writes = _largest_jumps(writes + weight_writes(
                    _host_rows(self._ring_before[order]), _host_rows(self._ring_after[order]),
                    list(self._ring_steps)))
            self.observed.rewritten_weights = writes
            self.observed.weights_on_grid = grid_writes(before, after)
            self._read_at = steps + later
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
    first_size = float(np.linalg.norm(before[0]))
    rows, last_write = [], None
    for k in range(1, len(before)):
        jump = float(np.linalg.norm(before[k] - after[k - 1]))
        if not jump > 0 or not np.isfinite(jump):
            continue
        start = last_write if last_write is not None else max(0, k - LOOKBACK_STEPS)
        travelled = float(np.linalg.norm(after[k - 1] - before[start]))
        left = float(np.linalg.norm(before[k] - before[start]))
        size = float(np.linalg.norm(before[k])) / first_size if first_size > 0 else float("nan")
        rows.append((int(steps[k - 1]), jump / typical,
                     left / travelled if travelled > 0 else float("inf"), size))
        last_write = k
    return _largest_jumps(rows)


def _largest_jumps(rows):
    """The ``ROWS_KEPT`` rows with the largest jumps, in step order."""
    return sorted(sorted(rows, key=lambda row: -row[1])[:ROWS_KEPT])


# --- weights written back onto a grid (real-bug batch 106) --------------------------------
GRID_MAX_DIVISOR = 8         # [design] the grid step is found as the smallest sampled
                             # |value| divided by 1..8: of 16 entries on a 4- or 8-bit grid
                             # (weights crowd near zero) the smallest is almost always within
                             # 8 steps of zero
GRID_MAX_LEVEL = 512         # [design] at most this many grid steps from zero: 8-bit
                             # symmetric grids reach 127, times the divisor tried
GRID_ROWS_EXAMINED = 64      # [cost] pre- and post-step rows tested for a grid, spread over
                             # the window: ~0.1 ms a row, so ~13 ms at findings, and only
                             # when something wrote the weights between steps
GRID_TOLERANCE = 1e-3        # [design] |value / step - nearest integer| allowed: float32
                             # rounding of k * step leaves ~1e-7 relative; random float
                             # weights pass for 15 entries with odds ~(2e-3)^15


def on_grid(row):
    """True when the row's nonzero entries are integer multiples (within GRID_TOLERANCE) of
    one step: the values a quantizer or sign() writes. Needs 2+ nonzero entries."""
    import numpy as np
    values = np.abs(row[np.isfinite(row)])
    values = values[values > 0]
    if len(values) < 2:
        return False
    smallest = float(values.min())
    for divisor in range(1, GRID_MAX_DIVISOR + 1):
        ratios = values / (smallest / divisor)
        if ratios.max() > GRID_MAX_LEVEL:
            return False
        if float(np.abs(ratios - np.rint(ratios)).max()) <= GRID_TOLERANCE:
            return True
    return False


def grid_writes(before, after):
    """One row about the followed weights over the window (empty without 3+ steps, or
    when nothing wrote them between steps):
    ``(steps followed, share of steps after which something wrote the weights, share of the
    pre-step rows on a grid, share of the post-step rows on a grid, median share of the
    optimizer's update kept along its direction once the next write is done)``. Weights a quantizer writes into
    the parameter are on a grid before every step and off it after (the optimizer's update
    leaves it); float weights are on no grid."""
    import numpy as np
    n = len(before)
    if n < 3:
        return []
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        written = np.any(before[1:] != after[:-1], axis=1)
        step = after[:-1] - before[:-1]
        squared = np.sum(step * step, axis=1)
        # the net move from one step's start to the next, along the optimizer's update
        kept = np.sum((before[1:] - before[:-1]) * step, axis=1) / squared
        kept = kept[np.isfinite(kept) & (squared > 0)]
    if not written.any():         # nothing wrote the weights: no row (and no cost)
        return []
    examined = np.unique(np.linspace(0, n - 1, min(n, GRID_ROWS_EXAMINED)).astype(int))
    on_before = float(np.mean([on_grid(before[k]) for k in examined]))
    on_after = float(np.mean([on_grid(after[k]) for k in examined]))
    return [(int(n), float(np.mean(written)), on_before, on_after,
             float(np.median(kept)) if len(kept) else 1.0)]   # no update: none lost
