"""Inputs that wrapped around in 8-bit integer arithmetic before they became floats
(INPUT_VALUES_WRAPPED_AROUND, ``nndebug.rules.wrapped_inputs``).

``(x - 128) / 128`` on a ``uint8`` image subtracts in 8 bits: 28 - 128 is 156, not -100, so
every pixel darker than 128 lands at the top of the range and the image is cut in two at
mid-grey and its halves swapped (the same with ``x - mean``, with two uint8 images added,
with an int8 overflow). The inputs are still 256 evenly spaced levels in a normal-looking
range; what gives it away is their neighbours. In an image (or a signal) neighbouring values
are close; after a wrap, values that were neighbours in grey (127 and 128) sit at the two
ends of the range, and shifting every level cyclically back by the wrap's offset makes the
data much smoother. In healthy data no cyclic shift does: it only tears the range apart
where it was continuous.

What it reads (torch only): the first float tensor of the model's first argument on its first
training forwards (``first_training_inputs.py`` keeps them) when it is a flat row of
features (rows, F), a sequence (rows, T, F) or an image batch (rows, C, H, W), at most
WRAP_READ_ROWS rows, sliced before the copy. Values must be an evenly spaced grid of at least
WRAP_MIN_SPAN of 256 levels (a byte's range) and no more, and vary inside each sample
(WRAP_MIN_WITHIN_SHARE) more than between samples. Neighbours: along the row (flat), the
time axis (sequences), the two image axes (images). For each cyclic shift ``c`` of the
levels, roughness = mean |neighbour difference| / std of the shifted levels; kept as
``run.observed.wrapped_input_levels``: ``[(step, rows, levels spanned, best shift,
roughness unshifted, roughness at the best shift)]``. Measured on the host when findings are
asked for; no per-step cost.
"""
import numpy as np

from ..rules.wrapped_inputs import wrapped_row
from .first_training_inputs import FirstInputsReader

BYTE_LEVELS = 256          # [design] the levels of the byte the values were computed in
WRAP_MIN_SPAN = 192        # [design] grid levels the values must span (of 256): 8-bit data
                           # using most of its range; a coarser grid (17 grey levels) says
                           # nothing of a byte's wrap
WRAP_GRID_TOLERANCE = 1e-3 # [design] distance from the grid, in steps, still on it (float32
                           # rounding of an affine map of integers)
WRAP_MIN_WITHIN_SHARE = 0.5   # [measured] mean per-sample std / std over the batch, at least:
                           # the samples vary inside themselves (digits: 0.99), so the
                           # roughness compares neighbours, not whole samples' brightness
                           # (smooth 8-bit fields nearly uniform per image: 0.0-0.24, where
                           # a shift moving whole images past the cut looks smoother)
WRAP_MIN_ROWS = 8          # [design] rows a batch needs
WRAP_READ_ROWS = 256       # [design] rows (samples) read of a batch


def _levels(x):
    """(integer levels 0..255 of ``x``, span) when its values are an evenly spaced grid
    spanning WRAP_MIN_SPAN..255 steps, else None."""
    values = np.unique(x)
    if values.size < 3 or values.size > BYTE_LEVELS:
        return None
    step = float(np.min(np.diff(values)))
    if step <= 0:
        return None
    k = (x - values[0]) / step
    levels = np.rint(k)
    if np.max(np.abs(k - levels)) > WRAP_GRID_TOLERANCE:
        return None
    span = int(levels.max())
    if not WRAP_MIN_SPAN <= span < BYTE_LEVELS:
        return None
    return levels.astype(np.int64), span


def _neighbour_pairs(levels):
    """(a, b) level pairs of neighbouring values (along the row, the time axis, or the two
    image axes)."""
    if levels.ndim == 2:
        axes = (1,)
    elif levels.ndim == 3:
        axes = (1,)
    elif levels.ndim == 4:
        axes = (2, 3)
    else:
        return None
    firsts, seconds = [], []
    for axis in axes:
        if levels.shape[axis] < 2:
            continue
        n = levels.shape[axis]
        firsts.append(np.take(levels, range(n - 1), axis=axis).ravel())
        seconds.append(np.take(levels, range(1, n), axis=axis).ravel())
    if not firsts:
        return None
    return np.concatenate(firsts), np.concatenate(seconds)


def roughness_by_shift(levels):
    """Roughness (mean |neighbour difference| / std of the values) of the levels shifted
    cyclically by each c in 0..255 (an array of 256, NaN where it is not defined), or None.
    Contrast-normalised: a shift that mends a tear lowers the differences and keeps the
    spread; one that tears the data raises both less evenly. A pair of neighbours (a < b)
    straddles the cut for the shifts c in [256 - b, 256 - a), where its difference d becomes
    256 - d: one pass over the distinct pairs and a cumulative sum give every shift."""
    pairs = _neighbour_pairs(levels)
    if pairs is None:
        return None
    a, b = pairs
    codes, counts = np.unique(np.minimum(a, b) * BYTE_LEVELS + np.maximum(a, b), return_counts=True)
    low, high = codes // BYTE_LEVELS, codes % BYTE_LEVELS
    counts = counts.astype(np.float64)
    d = (high - low).astype(np.float64)
    change = np.zeros(BYTE_LEVELS + 1)
    np.add.at(change, BYTE_LEVELS - high, counts * (BYTE_LEVELS - 2 * d))
    np.add.at(change, BYTE_LEVELS - low, -counts * (BYTE_LEVELS - 2 * d))
    total_diff = float((counts * d).sum()) + np.cumsum(change[:BYTE_LEVELS])
    total_diff[0] = float((counts * d).sum())        # shift 0 straddles nothing
    weights = np.bincount(levels.ravel(), minlength=BYTE_LEVELS).astype(np.float64)
    weights /= weights.sum()
    grid = np.arange(BYTE_LEVELS)
    shifted = (grid[None, :] + grid[:, None]) % BYTE_LEVELS          # row c: levels shifted by c
    mean = shifted @ weights
    std = np.sqrt(np.maximum((shifted ** 2) @ weights - mean ** 2, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(std > 0, total_diff / counts.sum() / std, np.nan)
    return out


def wrapped_levels(x):
    """(rows, span, best shift, roughness unshifted, roughness at the best shift) of one
    batch ``x`` (rows first), or None when it is not read here."""
    if x.ndim not in (2, 3, 4) or x.shape[0] < WRAP_MIN_ROWS or not np.isfinite(x).all():
        return None
    found = _levels(x)
    if found is None:
        return None
    levels, span = found
    per_sample = levels.reshape(levels.shape[0], -1).astype(np.float64)
    spread = float(levels.std())
    if spread <= 0 or float(per_sample.std(1).mean()) < WRAP_MIN_WITHIN_SHARE * spread:
        return None
    rough = roughness_by_shift(levels)
    if rough is None or not np.isfinite(rough[0]) or not np.isfinite(rough).any():
        return None
    best = int(np.nanargmin(rough))
    return int(x.shape[0]), span, best, float(rough[0]), float(rough[best])


class WrappedInputs(FirstInputsReader):
    field = "wrapped_input_levels"

    def measure(self, step, batch):
        if len(tuple(getattr(batch, "shape", ()))) not in (2, 3, 4):
            return None
        values = np.asarray(self.adapter.to_numpy(batch[:WRAP_READ_ROWS]), dtype=np.float64)
        measured = wrapped_levels(values)
        return None if measured is None else (step, *measured)

    def rules_out(self, row):
        """A batch that does not read as wrapped: the rule needs the wrap in every batch
        (``rules.wrapped_inputs``)."""
        return not wrapped_row(row)
