"""The statistics of one recorded step: plain functions, one job each.

Two kinds:

- *Device side* (``input_stats``, ``layer_stats``): reductions computed where the tensor
  lives, through the adapter's array namespace ``xp`` (torch or NumPy functions). They
  return ``[(name, value)]`` with values still on the device; the monitor packs them all
  into one host transfer (``transfer.py``). Nothing is copied to the host here.
- *Host side* (``histogram``, ``dead_units``): what is left to do once the values are NumPy.

Each statistic is computed on its own (``each``): one that fails (an exotic dtype, an
operation the framework refuses) is reported to ``on_error(name, error)`` and left out;
the others, and the record, are kept. A failing statistic costs one statistic.

These functions MEASURE; they do not judge. What counts as "too many dead units" is the
rules' business (``nndebug.rules``). The few levels below define what is measured (an
output counts as saturated above a level), not what is healthy.

A new statistic goes here as one function (or one more ``(name, value)`` pair in the
function for its kind of tensor), with a test against a NumPy reference in
``tests/test_statistics.py``; the record field it lands in is filled in ``transfer.py``.
"""
import numpy as np

# what is measured (not a verdict): a tanh output counts as saturated above |0.99|
# (derivative below 0.02), a sigmoid output outside [0.01, 0.99] (derivative below 0.01)
TANH_SATURATION = 0.99
SIGMOID_SATURATION = 0.99
ATTENTION_ONE_HOT = 0.99     # an attention row counts as one-hot above this largest weight
HISTOGRAM_SAMPLE = 4096      # values per layer kept for a histogram
HISTOGRAM_BINS = 40
ROW_VALUES = 64              # values of each input row kept to count distinct samples


def each(wanted, on_error=None):
    """``[(name, value)]`` from ``[(name, compute)]``, computing each on its own.

    A ``compute()`` that raises is handed to ``on_error(name, error)`` and left out (with
    no ``on_error`` the error propagates).
    """
    measured = []
    for name, compute in wanted:
        try:
            measured.append((name, compute()))
        except Exception as error:
            if on_error is None:
                raise
            on_error(name, error)
    return measured


# --- device side: reductions where the tensor lives --------------------------------------
def mean_and_std(xp, x):
    """The ``("mean", ...)`` and ``("std", ...)`` entries of a ``wanted`` list, computed
    together in one ``xp.mean_std`` call (the first entry asked computes both)."""
    both = []

    def pair():
        if not both:
            both.append(xp.mean_std(x))
        return both[0]
    return [("mean", lambda: pair()[0]), ("std", lambda: pair()[1])]


def input_stats(xp, x, heavy=False, on_error=None, rows=False):
    """Light statistics of the input batch; NaN/Inf show up as a non-finite mean.

    ``heavy`` adds the share of features that are identical across the batch; ``rows`` a
    sample of each row (``row_sample``), for counting the batch's distinct samples.
    """
    x = xp.asfloat(x)
    if not heavy:
        try:
            mean, std = xp.mean_std(x)
            return [("mean", mean), ("std", std)] + \
                ([("batch", float(x.shape[0]))] if x.ndim >= 1 else []) + \
                ([("rows", row_sample(xp, x))] if rows and x.ndim >= 2 else [])
        except Exception:     # measured again one by one below, to report the one that fails
            pass
    wanted = mean_and_std(xp, x)
    if rows and x.ndim >= 2:
        wanted.append(("rows", lambda: row_sample(xp, x)))
    if heavy and x.ndim >= 2 and x.shape[0] > 1:
        flat = xp.reshape(x, (x.shape[0], -1))
        wanted.append(("constant_features",
                       lambda: xp.mean(xp.asfloat(xp.std(flat, axis=0) <= 0))))
    if x.ndim >= 1:
        wanted.append(("batch", lambda: float(x.shape[0])))
    return each(wanted, on_error)


def layer_stats(xp, x, kind, heavy=False, on_error=None):
    """Statistics of one layer's output; ``kind`` is ``records.layer_kind`` of the layer.

    Always: mean and std; per ReLU unit the largest output over the batch (``unit_max``);
    for tanh/sigmoid the share of saturated outputs. ``heavy`` adds the largest absolute
    value, the spread across samples and across units, and a sample for a histogram.
    """
    x = xp.asfloat(x)
    batched = x.ndim >= 2 and x.shape[0] > 1
    if not heavy and kind not in SPECIAL_KINDS:
        try:
            return _light_layer_stats(xp, x, kind == "relu" and batched)
        except Exception:     # measured again one by one below, to report the one that fails
            pass
    wanted = mean_and_std(xp, x)
    if kind == "relu" and batched:
        # a unit (feature, or channel of a feature map) dead for every sample of the batch:
        # the largest output of each unit over the batch; <= 0 means dead, decided on the
        # host so that the rules can follow individual units across steps
        wanted.append(("unit_max", lambda: unit_max(xp, x)))
    elif kind == "tanh":
        wanted.append(("saturated", lambda: xp.mean(xp.asfloat(xp.abs(x) > TANH_SATURATION))))
    elif kind == "sigmoid":
        wanted.append(("saturated", lambda: xp.mean(xp.asfloat(
            xp.abs(x - 0.5) > SIGMOID_SATURATION - 0.5))))
    elif kind == "softmax" and x.ndim >= 3:
        wanted.extend(attention_peaks(xp, x))
    if heavy:
        wanted.append(("absmax", lambda: xp.amax(xp.abs(x))))
        if batched:
            flat = xp.reshape(x, (x.shape[0], -1))
            wanted.append(("batch_spread", lambda: xp.mean(xp.std(flat, axis=0))))
            if flat.shape[1] > 1:
                wanted.append(("unit_spread", lambda: xp.mean(xp.std(flat, axis=1))))
        wanted.append(("histogram", lambda: xp.reshape(x, (-1,))[:HISTOGRAM_SAMPLE]))
    return each(wanted, on_error)


def row_sample(xp, x):
    """At most ``ROW_VALUES`` evenly spaced values of each row of the batch ``x``, rows one
    after the other (1-D): enough to tell two samples apart, small enough to ride along
    with the step's one transfer (``sample_rows.py``)."""
    flat = xp.reshape(x, (x.shape[0], -1))
    stride = max(1, flat.shape[1] // ROW_VALUES) | 1       # odd: not the same pixel per row
    return xp.reshape(flat[:, ::stride][:, :ROW_VALUES], (-1,))


SPECIAL_KINDS = frozenset({"tanh", "sigmoid", "softmax"})   # kinds with their own statistics


def _light_layer_stats(xp, x, relu):
    """The light statistics of most layers (mean, std, and per ReLU unit the largest output)
    in one go: what ``layer_stats`` computes at nearly every recorded step, for every layer,
    without a closure and a ``try`` per statistic (about a third of a small layer's cost)."""
    mean, std = xp.mean_std(x)
    stats = [("mean", mean), ("std", std)]
    if relu:
        stats.append(("unit_max", unit_max(xp, x)))
    return stats


class Slot:
    """Row ``index`` of ``vector``, a statistic computed for several layer outputs at once
    (``batched_light_stats``: one mean per output, one row of unit maxima per ReLU). The
    step's packet sends the vector once and reads each row out on the host: no indexing
    operation per layer on the device (``transfer.Packet``). ``value()`` is the row as a
    device tensor, for a reader that wants it there."""
    __slots__ = ("vector", "index")

    def __init__(self, vector, index):
        self.vector, self.index = vector, index

    def value(self):
        return self.vector[self.index]

    def __array__(self, dtype=None, copy=None):
        value = self.value()
        value = value.detach().cpu().numpy() if hasattr(value, "detach") else np.asarray(value)
        return value if dtype is None else value.astype(dtype)


def batched_light_stats(xp, outputs, relu):
    """The light statistics of several layer outputs of ONE shape and dtype at once: what
    ``layer_stats`` computes for each of them on a light record, in a handful of operations
    on their stack instead of a handful per output (a small layer's statistics cost more in
    per-call overhead than in arithmetic: 50 outputs of 64x64 take 2.5 ms one by one, 0.45 ms
    stacked, on one CPU core). ``relu[i]``: whether output ``i`` is a batched ReLU's (it
    also gets ``unit_max``). Returns one ``[(name, value)]`` list per output, in order, each
    value a ``Slot`` of the group's vector."""
    count = len(outputs)
    flat = xp.reshape(xp.asfloat(xp.stack(outputs)), (count, -1))
    means, stds = xp.mean(flat, axis=1), xp.std(flat, axis=1)
    measured = [[("mean", Slot(means, i)), ("std", Slot(stds, i))] for i in range(count)]
    picked = [i for i in range(count) if relu[i]]
    if picked:
        shape = outputs[picked[0]].shape
        stacked = xp.stack([outputs[i] for i in picked])
        maxima = xp.amax(xp.reshape(stacked, (len(picked), shape[0], shape[1], -1)),
                         axis=(1, 3))
        for row, i in enumerate(picked):
            measured[i].append(("unit_max", Slot(maxima, row)))
    return measured


def unit_max(xp, x):
    """Each unit's largest output over the batch (a feature, or a channel of a feature map):
    ``x`` of shape (batch, units, ...)."""
    return xp.amax(xp.reshape(x, (x.shape[0], x.shape[1], -1)), axis=(0, 2))


def attention_peaks(xp, weights):
    """How peaked the rows of attention weights (B, [H,] T_query, T_key) are.

    Only rows with at least two visible keys count (a masked key has weight exactly 0; a
    query that sees one key is one-hot by construction). ``attention_peak``: the mean of
    (max - 1/n) / (1 - 1/n) over those rows, 0 for uniform rows over their n visible keys,
    1 for one-hot ones; ``attention_one_hot``: the share of them whose largest weight
    exceeds ``ATTENTION_ONE_HOT`` (a saturated softmax: its gradient is nearly zero).
    """
    def rows():
        flat = xp.reshape(weights, (-1, weights.shape[-1]))
        visible = xp.sum(xp.asfloat(flat > 0), axis=1)
        counted = xp.asfloat(visible >= 2)
        return xp.amax(flat, axis=1), visible + 2 * (1 - counted), counted

    def peak():
        top, visible, counted = rows()
        return xp.sum((top - 1 / visible) / (1 - 1 / visible) * counted) / xp.sum(counted)

    def one_hot():
        top, _, counted = rows()
        return xp.sum(xp.asfloat(top > ATTENTION_ONE_HOT) * counted) / xp.sum(counted)
    return [("attention_peak", peak), ("attention_one_hot", one_hot)]


# --- host side: NumPy in, NumPy out --------------------------------------------------------
def histogram(values, bins=HISTOGRAM_BINS):
    """``(counts, edges)`` of the finite values, or None when there is none.

    ``bins`` equal bins from the smallest value to the largest, the last one closed, as
    ``np.histogram`` makes them; the bin of each value is worked out directly from its
    distance to the smallest (one pass, then one ``bincount``): about a fifth of
    ``np.histogram``'s time on 4096 values, which a recorded step pays for every layer.
    A value within rounding of an inner edge may land in the bin next to NumPy's.

    Binned in float64: float32 outputs that differ only by rounding (a layer whose output
    is nearly constant) have a range too small for 40 float32 bins. A range too small even
    for float64 (a few ulps) gets a single bin.
    """
    finite = np.asarray(values, dtype=np.float64).reshape(-1)
    if not np.isfinite(finite).all():
        finite = finite[np.isfinite(finite)]
    if not finite.size:
        return None
    low, high = float(finite.min()), float(finite.max())
    edges = np.linspace(low, high, bins + 1)
    if not np.all(np.diff(edges) > 0):       # all equal, or a range of a few ulps
        return np.histogram(finite, bins=1)
    index = ((finite - low) * (bins / (high - low))).astype(np.intp)
    np.clip(index, 0, bins - 1, out=index)   # the largest value belongs to the last bin
    return np.bincount(index, minlength=bins), edges


def dead_units(unit_max):
    """``(dead, share)`` from each ReLU unit's largest output over the batch.

    ``dead``: bool per unit (never positive for any sample), or None when a value is not
    finite (NaN units are neither dead nor alive); ``share``: the dead share, NaN then.
    """
    unit_max = np.asarray(unit_max)
    if not np.all(np.isfinite(unit_max)):
        return None, float("nan")
    dead = unit_max <= 0
    return dead, float(dead.mean())
