"""The row sums of the probability targets cross-entropy got (SOFT_TARGETS_NOT_DISTRIBUTIONS,
``nndebug.rules.soft_targets``).

torch's cross-entropy reads a float target of the logits' shape as class probabilities and
does not check that they sum to 1 over the class axis. A row that sums to s scales that
sample's loss by s and pulls the softmax towards the row divided by s: a label-smoothing
formula that keeps the true class at 1 and adds eps/K everywhere, a teacher's logits passed
where its probabilities go, vote counts left undivided.

Read when findings are asked for, from the targets the loss capture already keeps
(``run.observed.targets``: references to the first recorded calls' targets, no copy per
step): each one a float target of its call's output shape gets its first ``ROWS`` rows
copied to the host once, and their sums kept. No per-step cost. Kept as
``run.observed.soft_target_rows``: ``[(step, loss name, [row sums])]`` (a declared field of
``nndebug.observed.Observed``: saved and loaded with the run; read anew from the kept
targets at every ``findings``, so a resumed monitor reads its own).
"""
import numpy as np

SOFTMAX_LOSSES = ("CrossEntropyLoss", "cross_entropy")
ROWS = 64                   # [design] rows summed per kept target: a batch's worth


def row_sums(array):
    """Sums over the class axis (axis 1) of the first ROWS positions of a probability
    target: (N, C) rows, or (N, C, ...) maps read position by position."""
    classes = array.shape[1]
    rows = np.moveaxis(array, 1, -1).reshape(-1, classes)[:ROWS]
    return rows.astype(np.float64).sum(axis=1)


def read_soft_target_rows(adapter, observed, on_error):
    try:
        calls = {call.step: call for call in observed.loss_calls}
        found = []
        for step, target in observed.targets:
            call = calls.get(step)
            if call is None or call.loss not in SOFTMAX_LOSSES or call.target_integer \
                    or call.target_shape is None or len(call.target_shape) < 2 \
                    or tuple(call.target_shape) != tuple(call.output_shape):
                continue
            array = np.asarray(adapter.to_numpy(target))
            found.append((step, call.loss, [float(s) for s in row_sums(array)]))
        observed.soft_target_rows = found
    except Exception as error:            # never break the user's run
        on_error(error)
