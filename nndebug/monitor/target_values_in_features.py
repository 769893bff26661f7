"""Input values that hold the very value of the row's target in many rows
(FEATURE_HOLDS_TARGET_VALUES, ``nndebug.rules.target_values_in_features``).

A continuous target almost never equals a feature to the last bit by chance. When one
column does so in a fifth of the rows or more, that column was computed FROM the target:
an order statistic (a median, a maximum, a minimum) over a window that contains the
value to predict - a rolling window centred on the row instead of ending at it, a
"trailing" window that a library in fact centres, a lag shifted the wrong way and
filled. In a forecast that is the future read today: training and validation look far
better than any live prediction can be, since the value is not known yet when the
prediction is made. A window of a recurrent or convolutional forecaster ``(rows, steps,
features)`` whose one position equals the target in EVERY row was cut one step too long:
it ends on the value it is asked to predict. (A table's column equal to the target in
every row is the target column left in the table, named TARGETS_IN_INPUTS by the
dependency checks.)

What it reads (torch only): the first float input of the model's first training forwards
(``first_training_inputs.py``, which keeps them: one forward pre-hook, removed after those
forwards), when it is a table ``(rows, columns)`` or a batch of windows ``(rows, steps,
features)`` of at most ``MAX_ROW_VALUES`` values a row. The targets are those the loss
capture already keeps (``run.observed.targets``).
Compared (NumPy, on the host) when findings are asked for, on batches whose targets are
one continuous value per row (at least ``DISTINCT_TARGETS`` of them distinct). Kept as
``run.observed.target_value_matches``: ``[(step, rows, [shape of a row], column, rows
where it equals the target)]``, the column (a position in the row, flattened) with the
most such rows of each batch.
"""
import numpy as np

MIN_ROWS = 16              # [design] rows a batch needs for a share of matches to mean anything
DISTINCT_TARGETS = 0.9     # [design] share of a batch's targets that must be distinct: counts,
                           # ratings and classes repeat, and a lagged count equals the next
                           # one by chance; continuous values do not
MAX_ROW_VALUES = 1024      # [design] values per row at most: tables and windows, not images


def best_matching_column(x, y):
    """(column, rows where x[:, column] == y) for the column (of the rows flattened) with
    the most such rows, or None when the batch is not a table or a batch of windows with
    one continuous target per row."""
    if x.ndim not in (2, 3) or x.shape[0] < MIN_ROWS:
        return None
    x = x.reshape(x.shape[0], -1)
    if not 1 <= x.shape[1] <= MAX_ROW_VALUES:
        return None
    y = y.reshape(-1) if y.ndim == 2 and y.shape[1] == 1 else y
    if y.ndim != 1 or y.shape[0] != x.shape[0] or y.dtype.kind != "f" or \
            np.unique(y).size < DISTINCT_TARGETS * y.size:
        return None
    matches = np.count_nonzero(x.astype(np.float64) == y.astype(np.float64)[:, None], axis=0)
    column = int(np.argmax(matches))
    return column, int(matches[column])


class TargetValuesInFeatures:
    def __init__(self, adapter, observed, inputs, on_error):
        """``inputs``: the shared ``first_training_inputs.FirstTrainingInputs``."""
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.inputs = inputs

    def read(self):
        """Set ``observed.target_value_matches`` from the kept inputs and the kept targets
        (host copies, once, when findings are asked for)."""
        try:
            found = []
            for step, table, target in self.inputs.paired_with(self.observed.targets,
                                                                "any argument"):
                best = best_matching_column(table, target)
                if best is not None:
                    found.append((step, int(table.shape[0]),
                                  [int(n) for n in table.shape[1:]], *best))
            if found or not self.observed.target_value_matches:
                self.observed.target_value_matches = found
        except Exception as error:
            self.on_error(error)
