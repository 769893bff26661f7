"""How many different samples the batches hold: are they all drawn from a handful?

A ``WeightedRandomSampler`` given one weight per CLASS instead of one per sample (a common
slip: ``weights = 1 / class_counts``) draws indices 0..C-1 only: every batch is made of the
same C samples, each repeated many times. Training runs, the loss falls (the model learns
those few samples by heart) and nothing crashes. The batches even differ from step to step,
so no check that compares whole batches sees it.

On the first ``SAMPLED_RECORDS`` judged records, the input batch travels to the host in
a small sample (``statistics.row_sample``: at most ``ROW_VALUES`` evenly spaced values of
each row, riding along with the step's one transfer), and ``RowCounter.take`` counts its
distinct rows and the distinct rows seen over all sampled batches so far, into
``run.observed.batch_rows``; ``rules/few_samples.py`` judges.
Two rows count as the same when their sampled values are equal, compared through one
projection on a fixed random vector (distinct real rows collide with probability ~0).
"""
import numpy as np

from ..observed import BATCH_ROWS_REMEMBERED

SAMPLED_RECORDS = 8          # [design] judged records whose batch rows are counted
MAX_ROWS_SEEN = BATCH_ROWS_REMEMBERED   # distinct rows remembered (nndebug.observed)


class RowCounter:
    def __init__(self):
        self.records = 0
        self.seen = set()
        self._directions = {}     # row length -> the fixed random vector rows are projected on

    def wanted(self):
        """Whether the coming judged record should carry its batch's row sample."""
        return self.records < SAMPLED_RECORDS

    def take(self, sample, record, observed):
        """Count the rows of ``sample`` (the host values of ``statistics.row_sample``, rows one
        after the other) of ``record``'s batch into ``observed.batch_rows``."""
        batch = int(record.inputs.get("batch", 0))
        if batch < 2 or sample.size == 0 or sample.size % batch:
            return
        rows = np.asarray(sample, dtype=np.float64).reshape(batch, -1)
        if not np.isfinite(rows).all():
            return
        keys = np.unique(rows @ self._direction(rows.shape[1]))
        self.records += 1
        if len(self.seen) < MAX_ROWS_SEEN:
            self.seen.update(keys.tolist())
        observed.batch_rows.append((int(record.step), batch, len(keys), len(self.seen)))

    def _direction(self, width):
        direction = self._directions.get(width)
        if direction is None:
            direction = self._directions[width] = \
                np.random.default_rng(width).standard_normal(width)
        return direction
