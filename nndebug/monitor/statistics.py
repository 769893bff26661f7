"""The statistics of one recorded step: plain functions, one job each.

Two kinds:

- *Device side* (``input_stats``, ``layer_stats``): reductions computed where the tensor
  lives, through the adapter's array namespace ``xp`` (torch or NumPy functions). They
  return ``[(name, value)]`` with values still on the device; the monitor packs them all
  into one host transfer (``transfer.py``). Nothing is copied to the host here.
- *Host side* (``histogram``, ``dead_units``): what is left to do once the values are NumPy.

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
HISTOGRAM_SAMPLE = 4096      # values per layer kept for a histogram
HISTOGRAM_BINS = 40


# --- device side: reductions where the tensor lives --------------------------------------
def input_stats(xp, x, heavy=False):
    """Light statistics of the input batch; NaN/Inf show up as a non-finite mean.

    ``heavy`` adds the share of features that are identical across the batch.
    """
    x = xp.asfloat(x)
    stats = [("mean", xp.mean(x)), ("std", xp.std(x))]
    if heavy and x.ndim >= 2 and x.shape[0] > 1:
        flat = xp.reshape(x, (x.shape[0], -1))
        stats.append(("constant_features", xp.mean(xp.asfloat(xp.std(flat, axis=0) <= 0))))
    if x.ndim >= 1:
        stats.append(("batch", float(x.shape[0])))
    return stats


def layer_stats(xp, x, kind, heavy=False):
    """Statistics of one layer's output; ``kind`` is ``records.layer_kind`` of the layer.

    Always: mean and std; per ReLU unit the largest output over the batch (``unit_max``);
    for tanh/sigmoid the share of saturated outputs. ``heavy`` adds the largest absolute
    value, the spread across samples and across units, and a sample for a histogram.
    """
    x = xp.asfloat(x)
    stats = [("mean", xp.mean(x)), ("std", xp.std(x))]
    batched = x.ndim >= 2 and x.shape[0] > 1
    if kind == "relu" and batched:
        # a unit (feature, or channel of a feature map) dead for every sample of the batch:
        # the largest output of each unit over the batch; <= 0 means dead, decided on the
        # host so that the rules can follow individual units across steps
        per_unit = xp.reshape(x, (x.shape[0], x.shape[1], -1))
        stats.append(("unit_max", xp.amax(per_unit, axis=(0, 2))))
    elif kind == "tanh":
        stats.append(("saturated", xp.mean(xp.asfloat(xp.abs(x) > TANH_SATURATION))))
    elif kind == "sigmoid":
        stats.append(("saturated", xp.mean(xp.asfloat(xp.abs(x - 0.5) > SIGMOID_SATURATION - 0.5))))
    if heavy:
        stats.append(("absmax", xp.amax(xp.abs(x))))
        if batched:
            flat = xp.reshape(x, (x.shape[0], -1))
            stats.append(("batch_spread", xp.mean(xp.std(flat, axis=0))))
            if flat.shape[1] > 1:
                stats.append(("unit_spread", xp.mean(xp.std(flat, axis=1))))
        stats.append(("histogram", xp.reshape(x, (-1,))[:HISTOGRAM_SAMPLE]))
    return stats


# --- host side: NumPy in, NumPy out --------------------------------------------------------
def histogram(values, bins=HISTOGRAM_BINS):
    """``(counts, edges)`` of the finite values, or None when there is none."""
    finite = np.asarray(values)[np.isfinite(values)]
    if not finite.size:
        return None
    return np.histogram(finite, bins=bins)


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
