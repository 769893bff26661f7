"""Pruned weights: zeros that do not survive one optimizer step, and layers pruned whole
(PRUNED_WEIGHTS_REGROW and LAYER_PRUNED_ENTIRELY, ``nndebug.rules.pruning``).

Pruning by hand sets part of a weight matrix to exactly zero (``w.mul_(mask)``) and is meant
to keep it there. Masking the gradient is not enough when the optimizer carries state: SGD's
momentum buffer and Adam's moments, filled before pruning, keep moving entries whose
gradient is now zero, and a plain optimizer moves them as soon as their gradient is not
masked at all (PyTorch-Deep-Compression#2, discuss.pytorch.org "How to prune weights in
PyTorch"). The zeros then last a single step: the network is dense again and shipping it
with the mask changes what it computes.

What is read (torch: one step pre-hook on the watched optimizer, for the first
``WINDOW_STEPS`` optimizer steps): ``SAMPLED`` fixed entries of each floating weight of 2+
dimensions (up to ``MAX_FOLLOWED`` of them, the largest), copied into a preallocated row per
step - a strided view of the weight's storage, so the copy is one small device copy (on the
CPU a NumPy copy of about a microsecond), with no host read and no count during training.
The pre-hook sees the weights the next forward will use, after the user's own code ran
between two steps: a mask applied again after every ``step()`` (sparse training's usual
loop) keeps the sampled zeros, and is not a regrowth.

When findings are asked for, the rows come to the host once and are read
(``pruning_events``): a step at which the sampled share of exact zeros jumped to at least
``PRUNED_SHARE_MIN`` (below 1: a matrix set wholly to zero is a re-initialisation, not a
mask) from at most half of it the step before, and what became of those zero entries one
step later. Kept in ``run.observed.pruned_weight_regrowth`` as ``(step, parameter name,
zero share the step before, zero share when pruned, zero share one step later, share of the
pruned entries non-zero one step later)``, shares of the sampled entries (a declared field
of ``nndebug.observed.Observed``). A first step's zeros (a pruned model fine-tuned from the
start, ``nn.init.sparse_``) have no step before them and are not read.

And once, at close: the masks ``torch.nn.utils.prune`` keeps (``<name>_mask`` buffers next
to ``<name>_orig`` parameters). Kept in ``run.observed.pruned_layers`` as ``(module name,
parameter name, mask entries, share masked)``.

Cost: one small copy per followed weight per optimizer step in the window, no host
transfer (an earlier version counted every weight's zeros at every step and read the counts
back: about 67 us on a 0.4 ms digits-MLP step, and a device sync on a GPU); the rows read
once at findings; the prune masks once at close.
"""
import math

PRUNED_SHARE_MIN = 0.2   # [design] a weight matrix with at least this share of exact zeros,
                         # appearing at once, was pruned: magnitude pruning schedules start at
                         # 20-50% (Han et al. 2015 prune 50-90% of a layer; Zhu & Gupta 2017's
                         # gradual schedule takes steps of a few % only after 20% or more are
                         # gone); trained float weights are never exactly zero by chance
JUMP_FACTOR = 2.0        # [design] "appeared at once": the share before was at most half
SAMPLED = 256            # [design] entries followed per weight: a share of 0.2 is read within
                         # +-0.025 (one binomial standard deviation), and a mask that holds
                         # keeps every sampled zero, so "held" is exact
WINDOW_STEPS = 1000      # [design] optimizer steps followed: pruning by hand happens in the
                         # first epochs of a fine-tune or at a schedule's first steps; rows cost
                         # SAMPLED floats a weight a step (1 MB for four weights)
MAX_FOLLOWED = 8         # [design] the largest weights followed: a hand-written pruning loop
                         # goes over every weight matrix, so the largest ones show it


def _numpy_dtypes():
    import torch
    return (torch.float32, torch.float64, torch.float16)


class PrunedWeights:
    def __init__(self, adapter, observed, model, optimizer, current_step, on_error):
        self.observed, self.on_error = observed, on_error
        self.current_step = current_step
        self.model = model
        self._handle = None
        self._followed = []     # [(name, strided view of the weight, preallocated rows)]
        self._steps = []        # the watched step of each sampled optimizer step
        self._read_at = 0
        register = getattr(optimizer, "register_step_pre_hook", None)
        if adapter.framework != "torch" or register is None:
            return
        try:
            self._followed = _followed_weights(model)
            if self._followed:
                self._handle = register(self._before_step)
        except Exception as error:        # never break the user's watch
            self._followed = []
            on_error(error)

    def _before_step(self, optimizer, args, kwargs):
        if len(self._steps) >= WINDOW_STEPS or not self._followed:
            return None                   # the window is full: nothing more per step
        try:
            row = len(self._steps)
            for _, view, rows in self._followed:
                rows[row] = view
            step = self.current_step()
            self._steps.append(-1 if step is None else int(step))
        except Exception as error:        # never break the user's step
            self._followed = []
            self.on_error(error)
        return None

    def read(self):
        """The sampled rows to the host (once per new steps), as pruning events."""
        steps = len(self._steps)
        if not self._followed or steps < 3 or steps == self._read_at:
            return
        try:
            events = []
            for name, _, rows in self._followed:
                events += pruning_events(name, _host_rows(rows[:steps]), self._steps)
            self.observed.pruned_weight_regrowth = sorted(events)
            self._read_at = steps
        except Exception as error:        # never break the user's findings
            self.on_error(error)

    def _remove(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

    def close(self):
        """Once: the rows are read, the step hook goes, the prune masks are read."""
        self.read()
        self._remove()
        self._followed = []
        try:
            self.observed.pruned_layers.extend(prune_masks(self.model))
        except Exception as error:        # never break the user's close
            self.on_error(error)
        self.model = None


def sampled_entries(p, sampled):
    """(stride, count, view): ``count`` (at most ``sampled``) evenly spaced entries of the
    weight ``p``, as a strided view of its storage (in-place writes show in it). The stride
    is coprime with a row's length, so the entries fall in many columns (a column of a blank
    pixel's weights is no sample). Shared with ``update_samples.py``."""
    count = min(sampled, p.numel())
    stride = max(1, p.numel() // count)
    while stride > 1 and math.gcd(stride, p.shape[-1]) > 1:
        stride -= 1
    return stride, count, p.detach().reshape(-1)[::stride][:count]


def _followed_weights(model):
    """[(name, strided view of SAMPLED entries, preallocated rows)] of the largest floating
    weights of 2+ dimensions (views share the weight's storage: in-place writes show)."""
    import torch
    weights = [(name, p) for name, p in model.named_parameters()
               if p.dim() >= 2 and p.is_floating_point() and p.is_contiguous()
               and p.numel() > 0]             # a layer of zero inputs has no entries
    weights = sorted(weights, key=lambda item: -item[1].numel())[:MAX_FOLLOWED]
    followed = []
    for name, p in weights:
        _, count, view = sampled_entries(p, SAMPLED)
        rows = torch.empty((WINDOW_STEPS, count), dtype=p.dtype, device=p.device)
        if p.device.type == "cpu" and p.dtype in _numpy_dtypes():
            view, rows = view.numpy(), rows.numpy()    # a NumPy row copy: about 1 us
        followed.append((name, view, rows))
    return followed


def _host_rows(rows):
    """Rows (a torch tensor on any device, or already a NumPy array) as a NumPy array."""
    import numpy as np
    if isinstance(rows, np.ndarray):
        return rows
    return rows.float().cpu().numpy()


def pruning_events(name, rows, steps):
    """[(step, name, share before, share pruned, share one step later, regrown share)] for
    each step whose sampled share of exact zeros jumped to PRUNED_SHARE_MIN or more (and
    below 1) from at most 1/JUMP_FACTOR of it; ``rows``: one row of sampled entries a step."""
    zero = rows == 0
    shares = zero.mean(axis=1)
    events = []
    for k in range(1, len(rows) - 1):
        share, before = float(shares[k]), float(shares[k - 1])
        if not (PRUNED_SHARE_MIN <= share < 1.0 and before * JUMP_FACTOR <= share):
            continue
        pruned = zero[k]
        regrown = float((~zero[k + 1][pruned]).mean())
        events.append((int(steps[k]), name, before, share, float(shares[k + 1]), regrown))
    return events


def prune_masks(model):
    """(module name, parameter name, entries, share masked) of every mask
    ``torch.nn.utils.prune`` keeps on the model's modules."""
    rows = []
    if model is None or not hasattr(model, "named_modules"):
        return rows
    for module_name, module in model.named_modules():
        buffers = getattr(module, "_buffers", {})
        params = getattr(module, "_parameters", {})
        for buffer_name, mask in buffers.items():
            if mask is None or not buffer_name.endswith("_mask"):
                continue
            name = buffer_name[:-len("_mask")]
            if name + "_orig" not in params or not mask.numel():
                continue
            masked = 1.0 - float((mask != 0).float().mean())
            rows.append((module_name, name, int(mask.numel()), masked))
    return rows
