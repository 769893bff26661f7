"""Windows scaled together with their targets (SCALED_WITH_TARGET_STATISTICS,
``nndebug.rules.joint_scaling``).

A forecaster reads a look-back and predicts what follows. Scale a window with a minimum
and maximum (or a mean and standard deviation) taken over the look-back AND the values to
predict - per window, or over the whole batch - and the scaled look-back carries where the
forecast lies: when it stays below 1 the maximum is still to come. Training learns to read
that; a real forecast, scaled by the look-back alone, does not have it.

What such a scaling leaves is exact and cheap to see: the statistic it sets (min 0 and
max 1, mean 0 and standard deviation 1, or mean 0 alone for a centring - a trajectory's
frame put at the mean of its past AND future positions, Khrylx/AgentFormer#5) holds, to
rounding, over inputs and targets together - on every row, or over the whole batch - but
over neither part alone. A scaler fitted on the inputs alone leaves the inputs canonical;
one fitted on a whole training series leaves nothing canonical in a batch.

What it keeps (torch only): the first float input of the model's first ``KEPT_FORWARDS``
training forwards (gradients on), cloned, when it is shaped like a batch of windows
((batch, length) or (batch, a, b), at most ``MAX_ROW_VALUES`` values a row), each with the
step it belongs to; one forward pre-hook, removed after those forwards. The targets are
those the loss capture already keeps (``run.observed.targets``). The comparison (NumPy, on
the host) runs when findings are asked for. Kept as ``run.observed.joint_scaling``:
``[(step, level, statistic, rows, together, inputs alone, targets alone, batch key)]``, the
last three numbers the share of rows where the statistic holds (a declared field of
``nndebug.observed.Observed``: saved and loaded with the run).
"""
import zlib

import numpy as np

KEPT_FORWARDS = 8          # [design] training forwards whose inputs are kept: the kept
                           # targets (loss_capture.TARGETS_KEPT, 4) come from the first steps
MAX_ROW_VALUES = 1024      # [design] values per input row at most: windows, not images
MIN_VALUES = 8             # [design] values a row needs together for its statistic to mean
                           # anything (a mean and spread of two values are always canonical)
MIN_DISTINCT = 6           # [design] distinct values a row needs together: binary rows
                           # (flags, one-hot codes) have min 0 and max 1 by nature
MIN_MAX_TOLERANCE = 1e-6   # [measured] (x - lo) / (hi - lo) is exactly 0 and 1 at the
                           # extremes in float32; 1e-6 leaves room for a float16 copy's
                           # rounding of values near 0 only, far below any real window's gap
MOMENT_TOLERANCE = 1e-4    # [measured] float32 mean and std of a few thousand standardised
                           # values are off by ~1e-6; a batch that merely came from a
                           # standardised series is off by ~1e-2 (its own sampling error)
AT_AN_END = 0.1            # [design] share of a row's values that may sit at 0 or at 1: a
                           # fitted min-max puts one value (or a tie) at each end, while
                           # bounded data - pixels over 255, clipped or saturated values,
                           # 0/1 labels - piles many at a bound (a digit's pixels: ~half 0)
LEVELS = ("row", "batch")
STATISTICS = ("min-max", "mean-std", "mean")


def min_max_holds(values):
    """Min 0 and max 1, each reached by a few values only (a scaler's ends, not a bound)."""
    most = max(1, int(AT_AN_END * values.size))
    at_low = int(np.count_nonzero(np.abs(values) <= MIN_MAX_TOLERANCE))
    at_high = int(np.count_nonzero(np.abs(values - 1.0) <= MIN_MAX_TOLERANCE))
    return 1 <= at_low <= most and 1 <= at_high <= most and \
        float(values.min()) >= -MIN_MAX_TOLERANCE and float(values.max()) <= 1 + MIN_MAX_TOLERANCE


def mean_std_holds(values):
    if abs(float(values.mean())) > MOMENT_TOLERANCE:
        return False
    return any(abs(float(values.std(ddof=ddof)) - 1.0) <= MOMENT_TOLERANCE for ddof in (0, 1))


def mean_holds(values):
    """Mean 0 (a centring alone: the row minus its mean, or a frame's origin at the mean of
    its positions), to rounding relative to the values' size."""
    return abs(float(values.mean())) <= MOMENT_TOLERANCE * max(1.0, float(np.abs(values).max()))


HOLDS = {"min-max": min_max_holds, "mean-std": mean_std_holds, "mean": mean_holds}


def informative(values):
    return values.size >= MIN_VALUES and len(np.unique(values)) >= MIN_DISTINCT


def shares(inputs, targets, level, statistic):
    """(rows, together, inputs alone, targets alone): over how many rows (whole batches at
    the "batch" level) the statistic holds for each; None when no row is informative."""
    holds = HOLDS[statistic]
    if level == "batch":
        inputs, targets = inputs.reshape(1, -1), targets.reshape(1, -1)
    counted = together = alone_inputs = alone_targets = 0
    for x, y in zip(inputs, targets):
        both = np.concatenate([x, y])
        if not informative(both):
            continue
        counted += 1
        together += holds(both)
        alone_inputs += holds(x)
        alone_targets += y.size > 1 and holds(y)
    if counted == 0:
        return None
    return counted, together / counted, alone_inputs / counted, alone_targets / counted


def compare(step, inputs, targets):
    """The rows of ``observed.joint_scaling`` for one batch: float64 arrays, inputs and
    targets with the same first dimension (the batch)."""
    inputs = inputs.reshape(len(inputs), -1)
    targets = targets.reshape(len(targets), -1)
    key = zlib.crc32(np.ascontiguousarray(inputs).tobytes())   # tells repeated batches apart
    found = []
    for level in LEVELS:
        for statistic in STATISTICS:
            counted = shares(inputs, targets, level, statistic)
            if counted is not None:
                found.append((int(step), level, statistic, *counted, int(key)))
    return found


class JointScaling:
    def __init__(self, adapter, observed, root, current_step, on_error):
        self.adapter, self.observed, self._on_error = adapter, observed, on_error
        self._current_step = current_step
        self.kept = []                     # [(step, input tensor clone)]
        self._forwards = 0
        self._hook = None
        if adapter.framework == "torch" and root is not None:
            import torch
            self._grad_enabled = torch.is_grad_enabled
            self._hook = adapter.add_forward_pre_hook(root, self._before_forward)

    def _before_forward(self, module, inputs):
        if not self._grad_enabled():
            return                         # evaluation: not what training was scaled with
        try:
            leaves = self.adapter.float_leaves(inputs)
            if leaves:
                x = leaves[0]
                shape = tuple(x.shape)
                if len(shape) in (2, 3) and shape[0] >= 2 and \
                        int(np.prod(shape[1:])) <= MAX_ROW_VALUES:
                    self.kept.append((self._current_step(), self.adapter.detach(x).clone()))
        except Exception as error:         # never break the user's forward pass
            self._on_error(error)
        self._forwards += 1
        if self._forwards >= KEPT_FORWARDS:
            self.close()

    def summarize(self):
        """Set ``observed.joint_scaling`` from the kept inputs and the kept targets."""
        try:
            inputs = {step: batch for step, batch in self.kept}   # the step's last forward
            found = []
            for step, target in self.observed.targets:
                batch = inputs.get(step)
                if batch is None:
                    continue
                x = np.asarray(self.adapter.to_numpy(batch), dtype=np.float64)
                y = np.asarray(self.adapter.to_numpy(target))
                if y.dtype.kind != "f" or y.ndim == 0 or y.shape[0] != x.shape[0] or \
                        np.isin(y, (0.0, 1.0)).all():
                    continue               # class ids, or 0/1 labels: not the inputs' values
                found.extend(compare(step, x, y.astype(np.float64)))
            self.observed.joint_scaling = found
        except Exception as error:
            self._on_error(error)

    def close(self):
        if self._hook is not None:
            self._hook.remove()
            self._hook = None
