"""Rows of a training batch whose inputs are identical, bit for bit, but whose targets
differ (CONFLICTING_LABELS_ON_IDENTICAL_INPUTS,
``nndebug.rules.conflicting_labels``).

No model can give two answers to one input. When a large share of a batch's rows have an
exact twin carrying another label, the data pipeline read the same file for both: a pair
dataset whose "stego" path resolves to the cover image itself, a "negative" sample drawn
from the positive's own file, a label list zipped against a file list that repeats one
file. The loss then sits at the entropy of the clashing labels (ln 2 for a pair labelled
0 and 1) however long it trains. Natural data almost never holds exact twins: images,
signals and embedded text differ in some value; augmentation makes two copies differ.
Only the model's first argument is read (the data; a carried recurrent state comes after
it), and a row of one or two values is not counted: a blank row (the empty history a
session starts from, an image zeroed by a bug) or a one-hot / multi-hot one (a current
item, a set of answers) is a discrete state that many rows share and go on from
differently; inputs that carry nothing are CONSTANT_INPUTS' business.

What it reads (torch only): the first float tensor of the model's first argument on its
first training forwards (``first_training_inputs.py``, which keeps them: one forward
pre-hook, removed after those forwards). The targets are those the loss capture already
keeps (``run.observed.targets``). Compared (NumPy, on the host) when findings are
asked for; kept as ``run.observed.conflicting_label_rows``: ``[(step, rows, distinct input
rows, rows whose identical twin has another target)]``. No per-step cost after the first
forwards.
"""
import numpy as np

from ..rules.conflicting_labels import rules_out

MIN_ROWS = 8               # [design] rows a batch needs before its twins are counted
MIN_ROW_VALUES = 16        # [design] values an input row needs: a table of a few discrete
                           # columns repeats rows with different outcomes as a matter of
                           # course (same age band, same answers, other label); an image,
                           # a signal window or an embedding does not
MIN_DISTINCT_ROW_VALUES = 3   # [design] a row of one or two values (blank, one-hot,
                           # multi-hot) is a discrete state: a current item, a set of
                           # answers; many rows share one and go on differently
MAX_BATCH_VALUES = 4_000_000   # [design] values of a batch compared at most (host memory)


def conflicting_rows(x, y):
    """(distinct input rows, rows whose identical twin has another target) of one batch,
    or None when the batch is not one the check reads (too few rows, short rows, targets
    not one per row). Rows are grouped by one projection on a fixed random vector (equal
    rows project equally; distinct real rows collide with probability ~0), so a batch costs
    two matrix-vector products and two sorts, not a comparison of every pair of rows."""
    if x.ndim < 2 or x.shape[0] < MIN_ROWS or x.size > MAX_BATCH_VALUES:
        return None
    rows = x.shape[0]
    x = np.asarray(x, dtype=np.float64).reshape(rows, -1)
    if x.shape[1] < MIN_ROW_VALUES or y.ndim < 1 or y.shape[0] != rows or \
            not np.isfinite(x).all():
        return None                        # (NaN inputs are another rule's business)
    y = np.asarray(y, dtype=np.float64).reshape(rows, -1)
    _, input_group = np.unique(x @ _direction(x.shape[1]), return_inverse=True)
    if input_group.max() + 1 == rows:
        return rows, 0                     # every row distinct: no twin to clash (most batches)
    _, target_group = np.unique(y @ _direction(y.shape[1]), return_inverse=True)
    input_group, target_group = input_group.reshape(-1), target_group.reshape(-1)
    # input groups holding two or more different targets: the distinct (input group,
    # target group) pairs, each as one integer (a 1-D unique, not a sort of rows)
    targets = int(target_group.max()) + 1
    pairs = np.unique(input_group.astype(np.int64) * targets + target_group)
    groups, targets_per_group = np.unique(pairs // targets, return_counts=True)
    clashing = 0
    for group in groups[targets_per_group > 1]:
        members = input_group == group
        if len(np.unique(x[members][0])) < MIN_DISTINCT_ROW_VALUES:
            continue       # a blank row (an empty history, a zeroed image) or a one-hot one
        clashing += int(members.sum())
    return int(input_group.max()) + 1, clashing


_DIRECTIONS = {}     # row width -> its fixed random vector (a generator costs ~20 us to make)


def _direction(width):
    """A fixed random vector (the same for every batch of this row width)."""
    direction = _DIRECTIONS.get(width)
    if direction is None:
        if len(_DIRECTIONS) > 64:
            _DIRECTIONS.clear()
        direction = _DIRECTIONS[width] = np.random.default_rng(width).standard_normal(width)
    return direction


class IdenticalInputRows:
    def __init__(self, adapter, observed, inputs, on_error):
        """``inputs``: the shared ``first_training_inputs.FirstTrainingInputs``."""
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.inputs = inputs

    def read(self):
        """Set ``observed.conflicting_label_rows`` from the kept inputs and the kept targets
        (host copies, once, when findings are asked for)."""
        try:
            found = []
            for step, batch, target in self.inputs.paired_with(self.observed.targets,
                                                                "first argument"):
                counts = conflicting_rows(batch, target)
                if counts is not None:
                    found.append((step, int(batch.shape[0]), *counts))
                    if rules_out(found[-1]):
                        break   # the rule needs the clash in every batch: this one rules it out
            if found or not self.observed.conflicting_label_rows:
                self.observed.conflicting_label_rows = found
        except Exception as error:
            self.on_error(error)
