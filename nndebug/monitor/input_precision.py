"""Inputs whose values the cast to their dtype rounded away (INPUTS_ROUNDED_BY_LOW_PRECISION,
``nndebug.rules.input_precision``).

A float keeps a fixed number of significant bits: bfloat16 8, float16 11, float32 24. A
feature whose values are large next to how much they vary - a mass-to-charge ratio near 600
that varies by 0.01, a year near 2010, a position id past 256, a timestamp near 1.7e9 -
loses that variation when the batch is cast to a narrow dtype before the model scales it:
bfloat16 can only hold 600, 604, 608, ..., and every finer difference is gone before the
model's own ``(x - 600) / 4`` could bring it into a range where bfloat16 is fine. Such a
column, as it reaches the model, varies by no more than a few of its dtype's steps at its
magnitude (``spacing = 2**floor(log2 |mean|) * eps``): its spread is about the rounding's.
Columns whose values sit near zero, or vary by many steps (standardised features, pixels,
counts), are untouched by the cast and are not reported.

What it reads (torch only): the first float tensor of the model's first argument on its first
training forwards (``first_training_inputs.py`` keeps them), with its dtype, read as rows of
its last axis when it is a table or a batch of sequences, of its flattened sample otherwise
(at most PRECISION_READ_ROWS rows and PRECISION_READ_COLUMNS columns, sliced before the
copy). Measured on the host when findings are asked for, kept as
``run.observed.rounded_input_columns``: ``[(step, dtype, rows, varied columns, rounded
columns, column, its mean, its std, the dtype's spacing there)]`` (the column shown: the
most rounded one). No per-step cost.
"""

import numpy as np

from .first_training_inputs import FirstInputsReader

# [design] the spacing between consecutive values just above 1 (machine epsilon) of each
# float dtype (IEEE 754 / bfloat16 formats), named as the framework prints it
DTYPE_EPSILONS = {"bfloat16": 2.0 ** -7, "float16": 2.0 ** -10, "half": 2.0 ** -10,
            "float32": 2.0 ** -23, "float": 2.0 ** -23, "float64": 2.0 ** -52,
            "double": 2.0 ** -52}
PRECISION_MIN_ROWS = 16    # [design] rows a batch needs before a column's spread means much
SPREAD_STEPS = 4.0         # [design] a column whose std is under this many of its dtype's
                           # steps at its magnitude holds a handful of the grid's values
                           # (at most ~2 x 4 + 1 levels): the cast, not the data, set them
PRECISION_READ_ROWS = 1024      # [design] rows read of a batch
PRECISION_READ_COLUMNS = 4096   # [design] columns read of a row (an image's pixels, a table's
                                # features)


def dtype_epsilon(dtype):
    """The machine epsilon of a dtype named like ``torch.bfloat16`` or ``float16`` (None:
    not a float dtype read here)."""
    return DTYPE_EPSILONS.get(str(dtype).rsplit(".", 1)[-1])


def rounded_columns(x, epsilon):
    """(rows, varied columns, rounded columns, (column, mean, std, spacing) of the most
    rounded one or None) of one batch ``x`` (rows, columns), as float64, or None when it is
    not read here."""
    if x.ndim != 2 or x.shape[0] < PRECISION_MIN_ROWS or not np.isfinite(x).all():
        return None
    mean = x.mean(0)
    std = x.std(0)
    varied = std > 0
    magnitude = np.abs(mean)
    with np.errstate(divide="ignore"):
        spacing = np.where(magnitude > 0, 2.0 ** np.floor(np.log2(np.where(
            magnitude > 0, magnitude, 1.0))) * epsilon, 0.0)
    rounded = varied & (std < SPREAD_STEPS * spacing)
    worst = None
    if rounded.any():
        ratio = np.where(rounded, std / np.where(spacing > 0, spacing, 1.0), np.inf)
        c = int(np.argmin(ratio))
        worst = (c, float(mean[c]), float(std[c]), float(spacing[c]))
    return int(x.shape[0]), int(varied.sum()), int(rounded.sum()), worst


class InputPrecision(FirstInputsReader):
    field = "rounded_input_columns"

    def measure(self, step, batch):
        epsilon = dtype_epsilon(getattr(batch, "dtype", None))
        shape = tuple(getattr(batch, "shape", ()))
        if epsilon is None or len(shape) < 2:
            return None
        rows = batch.reshape(-1, shape[-1]) if len(shape) == 3 else batch.reshape(shape[0], -1)
        rows = rows[:PRECISION_READ_ROWS, :PRECISION_READ_COLUMNS]   # sliced on the device
        measured = rounded_columns(np.asarray(self.adapter.to_numpy(rows), dtype=np.float64),
                                   epsilon)
        if measured is None:
            return None
        n, varied, rounded, worst = measured
        column, mean, std, spacing = worst if worst is not None else (-1, 0.0, 0.0, 0.0)
        return (step, str(batch.dtype).rsplit(".", 1)[-1], n, varied, rounded, column, mean,
                std, spacing)
