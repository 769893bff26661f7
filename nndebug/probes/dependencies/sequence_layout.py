"""Which axis of a 3-D sequence batch holds the samples, and INPUT_LAYOUT_SCRAMBLED for
sequences whose batch and time axes were swapped with ``view`` or ``reshape``.

The batch axis. The dependency probes read a batch batch-first: sample i is ``x[i]``. A
recurrent network built without ``batch_first`` is fed (time, batch, features) instead;
fed rightly, its samples are ``x[:, i]`` and reading ``x[i]`` as a sample takes time steps
for samples - every "sample" then depends on the "others" (the earlier steps), a
BATCH_MIXING that is no bug. The targets tell: one label per sample, ``(B,)`` or ``(B, 1)``,
lines up with axis 1 of a (T, B, F) batch and not with its axis 0 (``batch_on_dim1``).

The scramble. A (samples, steps) table of windows turned into the (steps, samples, 1) an
LSTM reads with ``X.view(steps, -1, 1)`` instead of ``X.t()`` keeps the memory order: time
step t of "sequence" k holds element ``t * samples + k`` of the table, values of other
windows at other lags. Seen from the batch alone, like the channels-last check
(``layout.py``): a series is smooth along its time axis; a batch scrambled this way is rough
along the time axis it is read with, and smooth once the view is undone (the batch read back
in memory order as (samples, steps, features)). A correct batch is smooth as given, so only a
clear reversal is named; tokens (integers), rough features (one-hot rows, noise) and
sequences of two or three steps stay silent. Only the samples read are taken from the device
(a few thousand values, microseconds). The same reversal is read the other way round for a
batch-first batch made with ``view`` from (steps, samples, features) data.
"""
import numpy as np

from ...findings import Finding

SEQUENCE_LAYOUT_MIN_STEPS = 8
"""[design] A time axis of at least 8 steps: shorter ones give too few lag-1 pairs per
series to call it rough or smooth."""
SEQUENCE_LAYOUT_MIN_SMOOTHNESS = 0.5
"""[measured] The batch with the view undone must read as series: a lag-1 correlation along
time of at least 0.5. Measured (``tests/test_real_bug_rules_83.py``, the values below): the
AR(3) windows of the real-bug case 0.84 undone, as the same windows read rightly; the 8x8
digits read row by row 0.46 as given (below it: rows of an image are no series to call
smooth), white noise 0.01 and one-hot characters -0.03."""
SEQUENCE_LAYOUT_MIN_GAIN = 0.3
"""[measured] ...and smoother than the batch as given by at least 0.3. Measured: the
scrambled windows 0.84 undone against -0.13 as given (gain 0.97; shuffled windows viewed the
same way 0.84 against 0.00); correct batches lose or stay even (windows in order 0.84 both
ways - consecutive windows are shifts of each other -, shuffled windows 0.04 undone against
0.84 as given, digit rows -0.08 against 0.46)."""
SEQUENCE_LAYOUT_MAX_VALUES = 1 << 12
"""[design] Values read per reading (whole series, at least two samples' worth)."""


def batch_on_dim1(shape, target_shape):
    """True when a 3-D batch holds its samples along axis 1: one target per sample lines up
    with axis 1 and not with axis 0."""
    if len(shape) != 3 or target_shape is None:
        return False
    target_shape = tuple(int(s) for s in target_shape)
    if len(target_shape) not in (1, 2) or (len(target_shape) == 2 and target_shape[1] != 1):
        return False
    samples = target_shape[0]
    return int(shape[1]) == samples and int(shape[0]) != samples


def probe_sequence_layout(read, shape, batch_axis):
    """[INPUT_LAYOUT_SCRAMBLED] or []. ``shape``: the batch's (3-D) shape; ``batch_axis``: 0
    or 1 (the other of the first two axes is time); ``read(index)``: the batch's values at
    the logical flat positions ``index`` (a NumPy int array), as a NumPy array - the batch is
    never copied whole."""
    shape = tuple(int(s) for s in shape)
    if len(shape) != 3 or batch_axis not in (0, 1):
        return []
    time_axis = 1 - batch_axis
    samples, steps, features = shape[batch_axis], shape[time_axis], shape[2]
    if steps < SEQUENCE_LAYOUT_MIN_STEPS or samples < 2:
        return []
    per_sample = steps * features
    kept = max(2, min(samples, SEQUENCE_LAYOUT_MAX_VALUES // max(1, per_sample)))
    # the first ``kept`` series, read as given and with the memory read the other way round
    # ((samples, steps, features) for a (steps, samples, features) batch, and the reverse)
    t = np.arange(steps)[:, None, None]               # indices broadcast to (steps, kept,
    b = np.arange(kept)[None, :, None]                # features)
    f = np.arange(features)[None, None, :]
    steps_first = (t * samples + b) * features + f
    samples_first = (b * steps + t) * features + f
    given_index, undone_index = (steps_first, samples_first) if batch_axis == 1 \
        else (samples_first, steps_first)
    read_shape = (steps, kept, features)
    as_given = np.asarray(read(given_index.ravel()), dtype=np.float64).reshape(read_shape)
    undone = np.asarray(read(undone_index.ravel()), dtype=np.float64).reshape(read_shape)
    rough, smooth = series_smoothness(as_given), series_smoothness(undone)
    if smooth < SEQUENCE_LAYOUT_MIN_SMOOTHNESS or smooth - rough < SEQUENCE_LAYOUT_MIN_GAIN:
        return []
    return [_finding(shape, batch_axis, rough, smooth)]


def series_smoothness(series):
    """Lag-1 correlation along axis 0 of a (steps, series, features) array, each feature
    centred on its own mean (0 for constant data)."""
    x = series - series.mean(axis=(0, 1), keepdims=True)
    power = float((x * x).sum())
    if not power > 0 or not np.isfinite(power):
        return 0.0
    pairs = float((x[1:] * x[:-1]).sum())
    return pairs / power * len(x) / max(1, len(x) - 1)


def _finding(shape, batch_axis, as_given, if_undone):
    if batch_axis == 1:
        steps, samples, features = shape
        layout, stored = "(steps, samples, features)", f"({samples}, {steps}, {features})"
        fix = ("move the axes, do not relabel them: X.transpose(0, 1) (X.t().unsqueeze(-1) for "
               "a (samples, steps) table), or build the recurrent layer with batch_first=True "
               "and feed X as it is")
    else:
        samples, steps, features = shape
        layout, stored = "(samples, steps, features)", f"({steps}, {samples}, {features})"
        fix = "move the axes with X.transpose(0, 1), not view/reshape"
    return Finding(
        "INPUT_LAYOUT_SCRAMBLED", "warning", "",
        message=f"the input sequences {shape} are read {layout}, but along their time axis "
                f"consecutive values hardly correlate ({as_given:.2f}) while the same memory "
                f"read as {stored} data gives smooth series ({if_undone:.2f}): the batch looks "
                "like samples-by-steps data relabelled with view or reshape instead of "
                "transposed - each sequence the model reads mixes values of several samples "
                "at other lags, while its target stays its own",
        evidence={"shape": list(shape), "batch_axis": batch_axis,
                  "lag1_correlation_as_given": as_given,
                  "lag1_correlation_view_undone": if_undone,
                  "meaning": "mean lag-1 correlation along the time axis, for the batch as "
                             "given and for its memory read in the swapped layout"},
        fix=fix)
