"""Input features that are exact copies of other features (INPUT_FEATURES_DUPLICATED,
``nndebug.rules.duplicated_inputs``).

A feature column computed by a line copied from another and never edited (the day-of-week
encoding still reading ``.hour``, a lag built with the same shift twice, a column
selected twice by a wrong name) reaches the model as a second copy of the first: the
information it was meant to carry is simply absent, and nothing fails. Across a batch of
rows such a column equals its original to the last bit in every row, which columns that
measure different things never do once they take several values.

What it reads (torch only): the first float tensor of the model's first argument on its
first training forwards (``first_training_inputs.py`` keeps them), when it is a table
``(rows, features)`` or a batch of sequences ``(rows, steps, features)`` (read as
``rows * steps`` rows of its last axis). Columns taking fewer than MIN_DISTINCT values in
the batch, or one value in most rows (constants, flags, one-hot columns, an image's sparse
pixels) are left out. A window cut from a series that repeats exactly (a noiseless pattern
of whole period ``p``) has every column equal to the one ``p`` steps on: when the copies all
lie at one offset and cover half of the varied columns or more, and no column takes more
values than that offset (a noiseless pattern of ``p`` values gives each column at most ``p``
of them), the batch is read as such a window and not reported. A block of continuous
features tiled side by side (a 2-D dataset ``repeat``-ed to 24 columns to fit a flow on,
bayesiains/nflows#22) has its copies at one offset too, but each column takes as many
values as there are rows: that is copied features, reported. Measured on the host when findings are asked for (at most
MAX_READ_ROWS rows of each batch, sliced before the copy), kept as
``run.observed.duplicated_input_columns``: ``[(step, rows, features, varied columns,
[[column, copies...], ...])]``. No per-step cost.
"""
import numpy as np

from .first_training_inputs import FirstInputsReader

MIN_ROWS = 16              # [design] rows a batch needs before two equal columns mean much
MIN_DISTINCT = 3           # [design] values a column must take in the batch: a flag or a
                           # one-hot column (2 values) can equal another by chance; an
                           # hour-of-day encoding of forecasts issued every 6 hours takes 4
MAX_MODE_SHARE = 0.9       # [design] rows its commonest value may hold: a sparse column (an
                           # image's pixel that is ink in a few rows) is mostly one value and
                           # equals another sparse one by chance
PERIODIC_SHARE = 0.5       # [design] copies at one offset covering this share of the varied
                           # columns: a window of an exactly periodic series
MAX_GROUPS = 16            # [design] groups of equal columns kept per batch
MAX_READ_ROWS = 2048       # [design] rows read of a batch (a batch of long sequences has
                           # rows * steps of them; a copy shows in any of its rows)
MAX_FEATURES = 4096        # [design] wider rows are images or embeddings, not features


def duplicated_columns(x):
    """(rows, features, varied columns, [[column, its copies...], ...]) of one batch, or
    None when it is not read here; the groups list is empty when no column is a copy."""
    if x.ndim == 3:
        x = x.reshape(-1, x.shape[-1])
    if x.ndim != 2 or x.shape[0] < MIN_ROWS or x.shape[1] < 2:
        return None
    if not np.isfinite(x).all():
        return None                        # NaN inputs are another rule's business
    x = np.ascontiguousarray(x.T)          # one row per column: its values as bytes
    varied_mask, distinct = _varied(x)
    varied_columns = np.flatnonzero(varied_mask)
    seen, groups, varied = {}, {}, len(varied_columns)
    for column in varied_columns.tolist():
        key = x[column].tobytes()
        if key in seen:
            groups.setdefault(seen[key], [seen[key]]).append(column)
        else:
            seen[key] = column
    found = sorted(groups.values())
    if found and _periodic_window(found, varied, int(distinct[varied_columns].max())):
        found = []
    return int(x.shape[1]), int(x.shape[0]), varied, \
        [[int(c) for c in group] for group in found[:MAX_GROUPS]]


def _varied(columns):
    """Per column (a row of ``columns``), whether it takes MIN_DISTINCT values or more,
    none in over MAX_MODE_SHARE of the rows, and how many distinct values it takes (the
    periodic-window test reads those too). All columns at once: each sorted, its runs of
    equal values counted with one ``bincount`` (a ``np.unique`` per column cost ~25 us
    each, 256 of them on a 64-feature table's four batches)."""
    ordered = np.sort(columns, axis=1)
    starts = np.ones(ordered.shape, dtype=bool)          # where a run of equal values starts
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    distinct = starts.sum(axis=1)
    run_ids = np.cumsum(starts, axis=1) - 1 + \
        np.arange(ordered.shape[0])[:, None] * ordered.shape[1]
    longest_run = np.bincount(run_ids.ravel(), minlength=ordered.size) \
        .reshape(ordered.shape).max(axis=1)
    varied = (distinct >= MIN_DISTINCT) & (longest_run <= MAX_MODE_SHARE * ordered.shape[1])
    return varied, distinct


def _periodic_window(groups, varied, most_distinct):
    """Every copy at one offset from the column before it, covering half of the varied
    columns or more, and no column taking more values than that offset: a window of an
    exactly periodic series (whose columns each read one of the period's values), not a
    copied feature."""
    offsets = {b - a for group in groups for a, b in zip(group, group[1:])}
    covered = sum(len(group) for group in groups)
    return len(offsets) == 1 and covered >= PERIODIC_SHARE * varied and \
        most_distinct <= next(iter(offsets))


class DuplicatedInputColumns(FirstInputsReader):
    field = "duplicated_input_columns"

    def measure(self, step, batch):
        shape = tuple(getattr(batch, "shape", ()))
        if len(shape) not in (2, 3) or not 2 <= shape[-1] <= MAX_FEATURES:
            return None
        rows = batch.reshape(-1, shape[-1])[:MAX_READ_ROWS]   # sliced on the device
        measured = duplicated_columns(np.asarray(self.adapter.to_numpy(rows)))
        return None if measured is None else (step, *measured)

    def rules_out(self, row):
        """A batch whose varied columns hold no copy: the copies must show in every batch
        (``rules.duplicated_inputs.copied_columns``)."""
        return row[3] >= 2 and not row[4]
