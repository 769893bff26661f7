"""Tables standardised along the wrong axis: every ROW of the input centred and scaled by its
own mean and std over the features (INPUT_ROWS_STANDARDISED,
``nndebug.rules.row_standardised_inputs``).

``(x - x.mean(axis=1)) / x.std(axis=1)``, ``StandardScaler().fit_transform(X.T).T``,
``normalize(x, axis=1)`` where axis 0 was meant: with features in different units (square
feet next to a room count next to a tax in dollars) the largest columns decide every row's
mean and std, the small ones are squashed into a sliver around one value, and what is left
of them is mixed with the large ones. The table that reaches the model is then mostly
"which column is this", the same in every row: most of the values' variance lies between
the columns' levels, little within a column. Per-row standardisation is also done on
purpose (a spectrum's standard normal variate, a per-image standardisation), so what is
kept here is only the evidence; the rule weighs it against how the run learnt.

What it reads (torch only): the first float tensor of the model's first argument on its
first training forwards (``first_training_inputs.py`` keeps them), when it is a 2-D table
(rows, features). Measured on the host when findings are asked for, kept as
``run.observed.row_standardised_inputs``: ``[(step, rows, features, rows whose mean is 0
and std 1 over the features, the share of the values' variance that lies between the
columns' means)]``. No per-step cost.
"""
import numpy as np

from ..rules.row_standardised_inputs import BETWEEN_COLUMN_SHARE
from .first_training_inputs import FirstInputsReader

MIN_ROWS = 8               # [design] rows a batch needs before it is read
MIN_FEATURES = 4           # [design] over 2 or 3 features any two distinct values standardise
                           # to a few fixed patterns
MEAN_TOLERANCE = 1e-3      # [design] |row mean| of a standardised row (float32 rounding is
                           # ~1e-7 of the raw scale)
STD_TOLERANCE = 1e-2       # [design] |row std - 1|, the std taken with or without Bessel's
                           # correction (numpy's default and torch's differ)


def row_scaling(x):
    """(rows, features, rows standardised over their features, the between-column share
    of the variance) of one 2-D batch, or None when the batch is not a table read here."""
    if x.ndim != 2 or x.shape[0] < MIN_ROWS or x.shape[1] < MIN_FEATURES:
        return None
    x = np.asarray(x, dtype=np.float64)
    if not np.isfinite(x).all():
        return None                        # NaN inputs are another rule's business
    rows, features = x.shape
    population = x.std(axis=1)
    sample = population * np.sqrt(features / (features - 1))
    standardised = (np.abs(x.mean(axis=1)) <= MEAN_TOLERANCE) & (
        (np.abs(population - 1) <= STD_TOLERANCE) | (np.abs(sample - 1) <= STD_TOLERANCE))
    between = float(x.mean(axis=0).var())
    within = float(x.var(axis=0).mean())
    share = between / (between + within) if between + within > 0 else 0.0
    return rows, features, int(standardised.sum()), round(share, 4)


class RowStandardisedInputs(FirstInputsReader):
    field = "row_standardised_inputs"

    def measure(self, step, batch):
        if len(getattr(batch, "shape", ())) != 2:
            return None
        measured = row_scaling(np.asarray(self.adapter.to_numpy(batch)))
        return None if measured is None else (step, *measured)

    def rules_out(self, row):
        """A batch whose variance lies mostly within the columns: the rule reads the lowest
        share of all batches (``rules.row_standardised_inputs``)."""
        return row[4] < BETWEEN_COLUMN_SHARE
