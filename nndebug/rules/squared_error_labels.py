"""One-hot class labels scored by squared error through a sigmoid or a softmax.

CLASSIFIER_TRAINED_WITH_SQUARED_ERROR: a mean-squared-error loss whose targets are one-hot
rows (exactly one 1 among 3 or more columns, every other value an exact 0) and whose
outputs are squashed: the model ends in a sigmoid, or its output rows sum to 1 (a softmax).

Squared error through a squashing output has a gradient that carries the squashing's own
slope: a unit pushed to the wrong end of its sigmoid, or a confident wrong softmax, gets
almost no gradient back, so learning starts slowly and stalls on the rows it first got
wrong; a sigmoid output with a small rate settles near the labels' mean, about 1/C for every
class and every input. Cross-entropy on the logits cancels that slope. Public reports:
"MNIST is using MSE loss", https://github.com/FluxML/model-zoo/issues/8 (a softmax output
trained with MSE, fixed by switching to cross-entropy), and the Stack Overflow question
"neural network trained with PyTorch outputs the mean value for every input" (sigmoid
outputs, MSE, SGD at 0.001; every output about 0.1). Raw (linear) outputs are left alone:
squared error on one-hot targets is a studied choice there, and trains.

Read from the recorded loss calls (``run.observed.loss_calls``): the first rows of each of
the first calls' targets (``LossCall.label_rows``/``one_hot_rows``), how far the output rows
are from summing to 1 (``row_sum_error``), and the model's last layer (``run.layers``).
"""
from ..findings import Finding
from .context import ROW_SUM_TOLERANCE, judged_loss_calls
from .graph import rule

SQUARED_ERROR_LOSSES = {"MSELoss", "mse_loss"}
SQUARED_ERROR_MIN_COLUMNS = 3   # [design] one-hot over 2 columns may be a pair of yes/no
                              # scores regressed on purpose (as SINGLE_LABEL_WITH_BCE's bar)
# layers that leave the values' range as it is (the layer that squashes comes before them)
PASS_THROUGH = {"Dropout", "Identity", "Flatten", "Unflatten"}
MIN_ONE_HOT_ROWS = 8          # [design] target rows read, each exactly one 1 among 3 or more
                              # columns: eight such rows by chance from values or multi-hot
                              # labels are unlikely, and a loop that scores one image per
                              # loss call shows one row per recorded step


def _one_hot_rows(calls):
    """(rows read, columns) when every read target row of ``calls`` is one-hot over the
    output's 2-D shape, else None."""
    rows, columns = 0, None
    for call in calls:
        shape = tuple(call.output_shape)
        if call.target_shape is None or len(shape) != 2 or tuple(call.target_shape) != shape:
            return None
        if call.label_rows is None:
            continue                       # not read (only the first calls' targets are)
        if call.label_rows == 0 or call.one_hot_rows != call.label_rows:
            return None                    # values, probabilities or multi-hot labels
        rows, columns = rows + call.label_rows, shape[1]
    return (rows, columns) if columns is not None else None


def _squashing(ctx, calls):
    """How the outputs are squashed ("a sigmoid (<layer>)", "a softmax"), or None: the
    model's last layer in registration order, or output rows that sum to 1."""
    layers = [layer for layer in ctx.run.layers if layer.type not in PASS_THROUGH]
    outputs_in_unit_range = all(-1e-6 <= c.output_min and c.output_max <= 1 + 1e-6
                                for c in calls)
    if layers and layers[-1].kind == "sigmoid" and outputs_in_unit_range:
        return f"a sigmoid ({layers[-1].name})"
    sums = [c.row_sum_error for c in calls if c.row_sum_error is not None]
    if sums and max(sums) <= ROW_SUM_TOLERANCE:
        return "a softmax (every output row sums to 1)"
    return None


@rule(produces="CLASSIFIER_TRAINED_WITH_SQUARED_ERROR",
      explains={"LOSS_PLATEAU"})
def classifier_trained_with_squared_error(ctx):
    calls = judged_loss_calls(ctx, SQUARED_ERROR_LOSSES)
    found = _one_hot_rows(calls)
    if found is None or found[0] < MIN_ONE_HOT_ROWS or found[1] < SQUARED_ERROR_MIN_COLUMNS:
        return None
    rows, columns = found
    how = _squashing(ctx, calls)
    if how is None:
        return None
    loss = calls[0].loss
    return Finding(
        code="CLASSIFIER_TRAINED_WITH_SQUARED_ERROR", severity="warning", where=loss,
        step=None,
        message=(f"{loss} scores one-hot class labels (every one of {rows} target rows read "
                 f"has exactly one 1 among {columns} columns) against outputs squashed by "
                 f"{how}. Squared error's gradient through a squashing output carries its "
                 "slope: a confident wrong answer gets almost none back, so the classifier "
                 "learns slowly, stalls on what it first got wrong, or settles near the "
                 f"labels' mean (about 1/{columns} for every class and input)."),
        evidence={"loss": loss, "rows": rows, "columns": columns, "squashed_by": how},
        fix=("Train a classifier with cross-entropy on the logits: drop the final "
             "sigmoid/softmax and use CrossEntropyLoss with the class ids "
             "(targets.argmax(dim=1)); apply softmax only to read probabilities."))
