"""Masks run through the inputs' intensity augmentation (TARGETS_AUGMENTED_WITH_INPUTS,
``nndebug.rules.augmented_targets``).

A segmentation dataset that applies one transform to the image and the mask alike is right
for the geometric part (a flip, a crop, a rotation must move both) and wrong for the
photometric part: a colour jitter scales the mask's ones by the brightness factor and blends
its zeros with its mean by the contrast factor. Each mask is then still two-valued, but its
two values are the draw's: 0.63 and 0.05 in one sample, 1.0 and 0.11 in the next, and they
follow the image's own intensity, drawn with the same factors.

What it reads (torch only): the kept first training inputs (``first_training_inputs.py``)
paired with the kept targets (``run.observed.targets``), when a target is a float array of
16+ values per sample whose trailing two axes match the input's (a mask of the image).
Measured (NumPy) when findings are asked for; kept as ``run.observed.augmented_target_rows``:
``[(step, samples, samples with 2 or 3 distinct values, of those with exactly the values 0
and 1, distinct upper values, correlation of a sample's upper value with its input's mean
under it)]``. No per-step cost.
"""
import numpy as np

MIN_VALUES = 16          # [design] values a sample's target needs (a mask, not a label)
MIN_SAMPLES = 8          # [design] samples a batch needs before it is read
MAX_LEVELS = 3           # [design] distinct values of a mask after an intensity transform
                         # (two; a third where a clamp cut one sample's values)
DECIMALS = 4             # [design] values equal to this many decimals are one level


def mask_levels(x, y):
    """(samples, samples with 2..MAX_LEVELS values, of those exactly {0, 1}, distinct upper
    values, correlation of the upper value with the input's mean under it) of one batch, or
    None when the batch is not an image with its mask."""
    if y.ndim < 3 or x.ndim < 3 or len(x) != len(y) or len(y) < MIN_SAMPLES:
        return None
    if x.shape[-2:] != y.shape[-2:] or y[0].size < MIN_VALUES:
        return None
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        return None
    samples = len(y)
    image = np.asarray(x, dtype=np.float64).reshape(samples, -1, *x.shape[-2:]).mean(axis=1)
    mask = np.round(np.asarray(y, dtype=np.float64).reshape(samples, -1, *y.shape[-2:]), DECIMALS)
    uppers, under, binary = [], [], 0
    for sample in range(samples):
        levels = np.unique(mask[sample])
        if not 2 <= len(levels) <= MAX_LEVELS:
            continue
        if len(levels) == 2 and levels[0] == 0 and levels[1] == 1:
            binary += 1
        top = (mask[sample] == levels[-1]).any(axis=0)
        uppers.append(levels[-1])
        under.append(image[sample][top].mean())
    if len(uppers) < MIN_SAMPLES:
        return samples, len(uppers), binary, len(set(uppers)), 0.0
    uppers, under = np.asarray(uppers), np.asarray(under)
    if uppers.std() == 0 or under.std() == 0:
        correlation = 0.0
    else:
        correlation = float(np.corrcoef(uppers, under)[0, 1])
    return samples, len(uppers), binary, len(set(uppers.tolist())), round(correlation, 4)


class AugmentedTargets:
    def __init__(self, adapter, observed, inputs, on_error):
        """``inputs``: the shared ``first_training_inputs.FirstTrainingInputs``."""
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.inputs = inputs

    def read(self):
        """Set ``observed.augmented_target_rows`` from the kept inputs and targets (host
        copies, once per findings; only float targets of 3+ axes are copied)."""
        try:
            targets = [(step, t) for step, t in self.observed.targets
                       if len(getattr(t, "shape", ())) >= 3 and
                       getattr(t, "is_floating_point", lambda: False)()]
            if not targets:
                return
            found = []
            for step, x, y in self.inputs.paired_with(targets, "first argument"):
                if not np.issubdtype(x.dtype, np.floating):
                    continue
                measured = mask_levels(x, y)
                if measured is not None:
                    found.append((step, *measured))
            if found:
                self.observed.augmented_target_rows = found
        except Exception as error:
            self.on_error(error)
