"""Are the rows the loss reads the model's rows, or a few of them repeated?

A loss usually reads the model's output, or a selection of its rows (``out[train_mask]``
with a boolean mask). A 0/1 mask stored as integers is an index instead: ``out[mask]``
gathers rows 0 and 1, once for each entry of the mask (real-bug batch 160). The rows the
loss reads are then one or two rows repeated, while the model's own rows all differ.

On the first ``CALLS_COMPARED`` recorded loss calls, the loss's first rows of class scores
(the sample the step's one transfer carried) and the model's first output rows (the
record's ``output`` before the loss sample replaces it) are counted for distinct rows,
into ``LossCall.distinct_rows`` and ``LossCall.model_distinct_rows``;
``rules/mask_as_index.py`` judges. A healthy batch settles it on one column.
"""
import numpy as np

CALLS_COMPARED = 4         # [design] the first recorded loss calls: the mask is there from
                           # step 0, and four calls make the verdict (rules/mask_as_index.py)


def distinct_rows(rows):
    """How many different rows ``rows`` (a 2-D NumPy array) holds: the first column's
    different values first (one sort of a few hundred numbers), the whole rows only when
    that column holds at most two values."""
    first = len(np.unique(rows[:, 0]))
    return first if first > 2 else len(np.unique(rows, axis=0))


def compare(loss_rows, model_rows, calls_kept):
    """(distinct loss rows, distinct model rows) for the call about to be kept as number
    ``calls_kept``, or (None, None) when it is not compared (a later call, no model
    output read, or outputs of a different width)."""
    if calls_kept >= CALLS_COMPARED or model_rows is None or loss_rows.ndim != 2 \
            or model_rows.ndim != 2 or loss_rows.shape[1] != model_rows.shape[1]:
        return None, None
    return distinct_rows(loss_rows), distinct_rows(model_rows)
