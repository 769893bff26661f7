"""Pruned weights: zeros that do not survive one optimizer step, and layers pruned whole
(PRUNED_WEIGHTS_REGROW and LAYER_PRUNED_ENTIRELY, ``nndebug.rules.pruning``).

Pruning by hand sets part of a weight matrix to exactly zero (``w.mul_(mask)``) and is meant
to keep it there. Masking the gradient is not enough when the optimizer carries state: SGD's
momentum buffer and Adam's moments, filled before pruning, keep moving entries whose
gradient is now zero, and a plain optimizer moves them as soon as their gradient is not
masked at all (PyTorch-Deep-Compression#2, discuss.pytorch.org "How to prune weights in
PyTorch"). The zeros then last a single step: the network is dense again and shipping it
with the mask changes what it computes.

What is read, on every optimizer step (torch: one step pre-hook on the watched optimizer,
on for the whole run): for each floating weight of 2+ dimensions, its count of exact zeros.
When that share jumped to at least ``PRUNED_SHARE_MIN`` (and below 1: a matrix set wholly
to zero is a re-initialisation, not a mask) from at most half of it one step before, the
zero positions are kept until the next step's pre-hook, which counts how many of them are
no longer zero. Kept in ``run.observed.pruned_weight_regrowth`` as ``(step, parameter name,
zero share the step before, zero share when pruned, zero share one step later, share of
the pruned entries non-zero one step later)`` (a declared field of
``nndebug.observed.Observed``). The pre-hook sees the weights the next forward will use
only after the user's own code ran between two steps: a mask applied again after every
``step()`` (sparse training's usual loop) keeps the zeros and is not a regrowth. A first
step's zeros (a pruned model fine-tuned from the start, ``nn.init.sparse_``) have no step
before them and are not read.

And once, at close: the masks ``torch.nn.utils.prune`` keeps (``<name>_mask`` buffers next
to ``<name>_orig`` parameters). Kept in ``run.observed.pruned_layers`` as ``(module name,
parameter name, mask entries, share masked)``.

Cost: one ``count_nonzero`` per weight matrix per optimizer step, the counts read in one
host transfer (measured on the zoo MLP in the batch-94 commit); the zero positions only for
the step after a pruning; the prune masks once at close.
"""

PRUNED_SHARE_MIN = 0.2   # [design] a weight matrix with at least this share of exact zeros,
                         # appearing at once, was pruned: magnitude pruning schedules start at
                         # 20-50% (Han et al. 2015 prune 50-90% of a layer; Zhu & Gupta 2017's
                         # gradual schedule takes steps of a few % only after 20% or more are
                         # gone); trained float weights are never exactly zero by chance
JUMP_FACTOR = 2.0        # [design] "appeared at once": the share before was at most half


class PrunedWeights:
    def __init__(self, adapter, observed, model, optimizer, current_step, on_error):
        self.observed, self.on_error = observed, on_error
        self.current_step = current_step
        self.model = model
        self._handle = None
        self._weights = []      # [(name, parameter)] read on each step
        self._shares = {}       # id -> zero share at the previous step's pre-hook
        self._pending = {}      # id -> (step, share before, share, zero positions)
        register = getattr(optimizer, "register_step_pre_hook", None)
        if adapter.framework != "torch" or register is None:
            return
        try:
            self._weights = [(name, p) for name, p in model.named_parameters()
                             if p.dim() >= 2 and p.is_floating_point()]
            if self._weights:
                self._handle = register(self._before_step)
        except Exception as error:        # never break the user's watch
            on_error(error)

    def _before_step(self, optimizer, args, kwargs):
        try:
            self._read(self.current_step())
        except Exception as error:        # never break the user's step
            self.on_error(error)
            self._remove()
        return None

    def _read(self, step):
        import torch
        counts = [torch.count_nonzero(p.detach()) for _, p in self._weights]
        try:
            nonzero = torch.stack(counts).tolist()     # one host transfer per step
        except RuntimeError:                          # weights spread over devices
            nonzero = [int(c) for c in counts]
        for (name, p), kept in zip(self._weights, nonzero):
            key = id(p)
            data = p.detach()
            share = (data.numel() - kept) / max(data.numel(), 1)
            pending = self._pending.pop(key, None)
            if pending is not None:
                pruned_at, before, pruned_share, positions = pending
                regrown = float((data[positions] != 0).float().mean()) if positions.any() else 0.0
                self.observed.pruned_weight_regrowth.append(
                    (int(pruned_at), name, before, pruned_share, share, regrown))
            before = self._shares.get(key)
            if before is not None and PRUNED_SHARE_MIN <= share < 1.0 and \
                    before * JUMP_FACTOR <= share:
                self._pending[key] = (step if step is not None else -1, before, share,
                                      data == 0)
            self._shares[key] = share

    def _remove(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

    def close(self):
        """Once: the step hook goes; the prune masks the model holds are read."""
        self._remove()
        self._pending = {}
        try:
            self.observed.pruned_layers.extend(prune_masks(self.model))
        except Exception as error:        # never break the user's close
            self.on_error(error)
        self.model, self._weights = None, []


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
