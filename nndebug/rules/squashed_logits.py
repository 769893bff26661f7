"""A cross-entropy fed squashed scores: the model ends in a sigmoid (every score strictly
between 0 and 1) and the loss applies its own log-softmax on top.

Softmax compares the scores by their differences. Scores squashed into (0, 1) differ by
less than 1, so the right class can never get much more probability than the others: with
C classes the loss cannot go below ln(1 + (C - 1) / e) (1.46 nats for 10 classes, where
chance is 2.30), and the sigmoid's shrinking slope slows what learning is left.

Healthy logits take both signs from the first step (a fresh linear layer's outputs are
centred on 0) and spread well beyond 1 as the model learns; a softmax output also lies in
(0, 1) but its rows sum to 1, and DOUBLE_SOFTMAX names that case. Reads the loss calls the
monitor recorded (``run.observed.loss_calls``: min/max of what reached the loss, and how
far its rows were from summing to 1).

Public report: a logistic regression ending in ``F.sigmoid`` trained with
``F.cross_entropy`` (https://github.com/opendataval/opendataval/issues/25).
"""
import math

from ..findings import Finding
from .context import MIN_RECORDS, ROW_SUM_TOLERANCE, fmt, judged_loss_calls
from .graph import rule

# losses that apply log-softmax to their input (torch class and functional names; minigrad
# spells them alike)
LOG_SOFTMAX_LOSSES = {"CrossEntropyLoss", "cross_entropy"}


def _finite(value):
    """A number that was measured (a call may hold None or NaN where nothing was)."""
    return isinstance(value, (int, float)) and math.isfinite(value)


def squashed_calls(calls):
    """The calls, when every one of them (at least MIN_RECORDS with finite numbers) fed the
    loss values strictly inside (0, 1) whose rows do not sum to 1 (a sigmoid's output, not
    a softmax's); otherwise an empty list."""
    measured = [c for c in calls if _finite(c.output_min) and _finite(c.output_max)]
    if len(measured) < MIN_RECORDS:
        return []
    for call in measured:
        inside = 0.0 < call.output_min and call.output_max < 1.0
        # rows summing to 1 are a softmax's probabilities (DOUBLE_SOFTMAX's business)
        softmax_rows = _finite(call.row_sum_error) and \
            call.row_sum_error <= ROW_SUM_TOLERANCE
        if not inside or softmax_rows:
            return []
    return measured


def loss_floor(classes):
    """The lowest cross-entropy scores in [0, 1] allow: the right class at 1, the others at
    0, so its probability is e / (e + C - 1)."""
    return math.log(1 + (classes - 1) / math.e)


@rule(produces="SQUASHED_LOGITS", reads={"DOUBLE_SOFTMAX"},
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE", "SATURATED_ACTIVATIONS"})
def squashed_logits(ctx):
    observed = getattr(ctx.run, "observed", None)
    if observed is None or "DOUBLE_SOFTMAX" in ctx.found:
        return None
    calls = squashed_calls(judged_loss_calls(ctx, LOG_SOFTMAX_LOSSES))
    if not calls:
        return None
    shape = calls[0].output_shape
    classes = shape[1] if shape is not None and len(shape) >= 2 else None
    low = min(c.output_min for c in calls)
    high = max(c.output_max for c in calls)
    floor = loss_floor(classes) if classes and classes >= 2 else None
    bound = (f" With {classes} classes the loss can never go below {floor:.2f} "
             f"(chance is {math.log(classes):.2f}).") if floor is not None else ""
    sigmoid_layers = [layer.name for layer in ctx.run.layers if layer.kind == "sigmoid"]
    return Finding(
        code="SQUASHED_LOGITS", severity="error",
        where=sigmoid_layers[-1] if sigmoid_layers else calls[0].loss, step=calls[0].step,
        message=f"{calls[0].loss} applies its own softmax, and every score it got lies "
                f"strictly between 0 and 1 ({fmt(low)} to {fmt(high)} over {len(calls)} "
                "recorded calls), rows not summing to 1: the model's output went through a "
                "sigmoid first. The softmax then sees scores that differ by less than 1, so "
                f"no class can stand out.{bound}",
        evidence={"loss": calls[0].loss, "input_min": low, "input_max": high,
                  "calls": len(calls), "classes": classes, "loss_floor": floor,
                  "sigmoid_layers": sigmoid_layers},
        fix="Remove the final sigmoid and give the raw scores (logits) to the cross-entropy; "
            "apply softmax (or sigmoid) only to turn logits into predictions.")
