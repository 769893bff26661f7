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
Where another array of the batch's length holds more than padding past the real positions
(a pair's second text, not a mask or token types), a change is confirmed with that array
left whole: cut at the first text's length, it loses words of its own (real-bug batch 314:
a question-pair encoder that hides its padding moved its prediction by 0.14 that way).
"""
import numpy as np

from ...findings import Finding
from .batch import Batch, array_leaves, map_arrays
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

    def cut_all(i, a):
        if i in one.per_sample and a.ndim >= 2 and a.shape[1] == full:
            return a[:, :real].copy()
        return a

    def cut_padding(i, a):
        return cut_all(i, a) if i == one.primary or _only_padding_after(a, real) else a
    try:
        kept, _ = runner.forward(one.tree, 1, full)
        moved = _real_change(kept, runner.forward(map_arrays(one.tree, cut_all), 1, real)[0],
                             full, real)
    except ModelFailed:
        return [], ["padding amount not checked: the model would not run on the sample with "
                    "its padding cut off"]
    except ValueError:       # an output the runner cannot read for one shorter sample
        return [], ["padding amount not checked: the model's output for the sample with its "
                    "padding cut off could not be read per sample (outputs flattened over "
                    "positions)"]
    if moved is None or not moved > PADDING_STRIPPED_TOLERANCE:
        return [], []
    if _second_text(one, full, real):
        # another array of the batch's length holds more than padding past the real
        # positions (a pair's second text): cut with the first, it lost words of its own
        try:
            again = _real_change(kept, runner.forward(map_arrays(one.tree, cut_padding), 1,
                                                      real)[0], full, real)
        except (ModelFailed, ValueError):
            again = moved      # the model needs every array at one length: the first reading
        if again is None or not again > PADDING_STRIPPED_TOLERANCE:
            return [], []
        moved = again
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


def _only_padding_after(array, real):
    """Whether every position of the (one-sample) ``array`` from ``real`` on holds one value:
    padding, or a mask's or token types' constant there."""
    tail = array[:, real:]
    return tail.size == 0 or bool(np.all(tail == tail.reshape(-1)[0]))


def _second_text(one, full, real):
    """Whether an array of the batch's length other than the primary holds more than padding
    past the primary's real positions."""
    return any(i != one.primary and i in one.per_sample and a.ndim >= 2 and
               a.shape[1] == full and not _only_padding_after(a, real)
               for i, a in enumerate(array_leaves(one.tree)))


def _real_change(kept, stripped, full, real):
    """The largest relative change of the real positions' outputs (or of the one output of a
    pooled model), padding kept against padding cut; None when the two cannot be compared."""
    a, b = positions_first(kept, full), positions_first(stripped, real)
    if (a is None) != (b is None):
        return None
    return float(row_changes(kept, stripped).max()) if a is None else \
        float(row_changes(a[:real], b[:real]).max())
