"""PADDING_LEAK, second look: the outputs at real positions change when the padding is taken
away.

``padding.py`` changes what the padded positions *hold*; a model that zeroes them first (an
embedding multiplied by the mask) passes that test and can still read *that they are
there*: a convolution's bias at a padded position is an activation like any other, and
max-pooling over time lets it win. The same text then gets another prediction alone than
padded in a batch with a longer one.

How it is seen: one right-padded sample is run as it is and with its padding cut off (every
per-sample array of the batch's length cut alike, so a mask stays aligned); the outputs at
its real positions (or its one output, for a pooled model) must not move beyond rounding.
Left padding is not cut: absolute positions shift with it, which a model may read by design.
"""
import numpy as np

from ...findings import Finding
from .batch import Batch, map_arrays
from .future import positions_first
from .measure import row_changes
from .padding import find_padding
from .runner import ModelFailed

PADDING_STRIPPED_TOLERANCE = 1e-6
"""[design] relative change of the real positions' outputs, padding cut against padding kept,
above which the padding is read: in float64 a model that hides its padding moves by rounding
only (sums over fewer exactly-zero terms, ~1e-15); the batch-53 text CNN, whose padded
positions win its max-pool, moves its logits by 7e-4 untrained and 3e-3 at watch's probe
step (measured, relative): three orders of magnitude either way."""


def probe_padding_amount(runner, batch, rng):
    """(findings, notes)."""
    found = find_padding(runner, batch)
    if found is None:
        return [], []
    padded, how = found
    right = padded[:, -1] & ~padded[:, 0] & ~padded.all(axis=1)
    if not right.any():
        return [], []
    counts = (~padded).sum(axis=1)
    sample = int(np.flatnonzero(right)[np.argmin(counts[right])])
    real = int(counts[sample])
    one = Batch(batch.rows([sample]), batch.primary)
    full = batch.length

    def cut(i, a):
        if i in one.per_sample and a.ndim >= 2 and a.shape[1] == full:
            return a[:, :real].copy()
        return a
    try:
        kept, _ = runner.forward(one.tree, 1, full)
        stripped, _ = runner.forward(map_arrays(one.tree, cut), 1, real)
    except ModelFailed:
        return [], ["padding amount not checked: the model would not run on the sample with "
                    "its padding cut off"]
    except ValueError:       # an output the runner cannot read for one shorter sample
        return [], ["padding amount not checked: the model's output for the sample with its "
                    "padding cut off could not be read per sample (outputs flattened over "
                    "positions)"]
    a, b = positions_first(kept, full), positions_first(stripped, real)
    if (a is None) != (b is None):
        return [], []
    moved = float(row_changes(kept, stripped).max()) if a is None else \
        float(row_changes(a[:real], b[:real]).max())
    if not moved > PADDING_STRIPPED_TOLERANCE:
        return [], []
    return [Finding(
        "PADDING_LEAK", "error", None,
        message=f"the outputs at real positions change when the padding is cut off (sample "
                f"{sample}: {real} real positions, {full - real} padded, found from {how}; "
                f"change {moved:.2g} relative): the padding's content is hidden, but not its "
                f"presence - a text gets another prediction alone than in a padded batch",
        evidence={"sample": sample, "real_positions": real, "padded_positions": full - real,
                  "found_from": how, "strength": moved, "probe": "padding cut off"},
        fix="keep padded positions out of every reduction over positions, not only out of the "
            "embedding: fill them with -inf (the dtype's minimum) before a max-pool, leave them "
            "out of a mean, mask them as attention keys")], []
