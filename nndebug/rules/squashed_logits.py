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
from .curve import learning_poor
from .graph import rule

# real-bug batch 68: cosine similarities given to cross-entropy as logits, no temperature
COSINE_BOUND = 1.0           # [design] |cos| <= 1: the scores of a cosine (or tanh) output
COSINE_ROUNDING = 1e-3       # [design] float32 rounding of a normalised dot product above 1
COSINE_PRESSED = 0.9         # [measured] the top score on every call of the run's second half
                             # at least this: scores pressed against the bound (the planted
                             # in-batch contrastive run: 0.97-0.99; a digits MLP's logits
                             # top out at 0.28 over 200 steps at lr 1e-5, and at Adam's 1e-3
                             # they pass 1 by step 64 and reach 3.3 by step 128)
COSINE_LATE_SHARE = 0.5      # [design] the run's second half (by recorded step) must have calls
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
        return _cosine_logits(ctx)   # real-bug batch 68: cosines as logits, no temperature
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


def _cosine_logits(ctx):
    """SQUASHED_LOGITS for a cross-entropy whose scores are cosines: every score it got, on
    every recorded call to the end of the run, lies in [-1, 1], the top score of each call in
    the run's second half pressed against 1, and the run learned poorly. An in-batch
    contrastive loss fed ``z1 @ z2.T`` of normalised embeddings without dividing by a
    temperature (lightonai/pylate#115: "for contrastive training, we require a very low
    temperature"): the softmax over N candidates can give the right one at most
    e / (e + (N - 1) / e). Healthy logits leave [-1, 1] as the model learns; a fresh
    layer's sit well inside it."""
    calls = [c for c in judged_loss_calls(ctx, LOG_SOFTMAX_LOSSES)
             if _finite(c.output_min) and _finite(c.output_max)]
    if len(calls) < MIN_RECORDS or not ctx.run.records:
        return None
    bound = COSINE_BOUND + COSINE_ROUNDING
    if any(c.output_min < -bound or c.output_max > bound for c in calls):
        return None
    if any(_finite(c.row_sum_error) and c.row_sum_error <= ROW_SUM_TOLERANCE for c in calls):
        return None                     # probabilities: DOUBLE_SOFTMAX's business
    last_step = max(r.step for r in ctx.run.records)
    late = [c for c in calls if c.step >= COSINE_LATE_SHARE * last_step]
    if not late or last_step <= 0 or any(c.output_max < COSINE_PRESSED for c in late):
        return None
    if not learning_poor(ctx):
        return None
    shape = calls[-1].output_shape
    classes = shape[1] if shape is not None and len(shape) >= 2 else None
    floor = math.log(1 + (classes - 1) / math.e ** 2) if classes and classes >= 2 else None
    bound_text = (f" With {classes} candidates per row the loss can never go below "
                  f"{floor:.2f} (chance is {math.log(classes):.2f}).") if floor else ""
    low = min(c.output_min for c in calls)
    high = max(c.output_max for c in calls)
    return Finding(
        code="SQUASHED_LOGITS", severity="warning", where=calls[0].loss, step=calls[0].step,
        message=f"{calls[0].loss} applies its own softmax, and every score it got lies in "
                f"[-1, 1] ({fmt(low)} to {fmt(high)} over {len(calls)} recorded calls up to "
                f"step {calls[-1].step}), the top score pressed against 1 to the end: cosine "
                "similarities (or tanh outputs) given as logits with no temperature. Scores "
                "that differ by at most 2 cannot single out the right row or class, and the "
                f"run learned poorly.{bound_text}",
        evidence={"loss": calls[0].loss, "input_min": low, "input_max": high,
                  "calls": len(calls), "classes": classes, "loss_floor": floor,
                  "late_top_scores": [c.output_max for c in late]},
        fix="Divide the cosine similarities by a temperature (0.05-0.1 for contrastive "
            "losses; sentence-transformers multiplies by scale=20), or learn one (CLIP's "
            "logit_scale); for a tanh output, give the raw scores to the cross-entropy.")
