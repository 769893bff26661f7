"""CLASS_WEIGHTS_CANCELLED_BY_MEAN: class weights on a class-index loss whose every call
holds one target, so the weighted mean divides each weight out again.

``CrossEntropyLoss(weight=w)`` with ``reduction="mean"`` returns sum(w[y_i] l_i) / sum(w[y_i]):
a weighted average, not a weighted sum. Over a batch of one sample that is w[y] l / w[y]
= l, the unweighted loss, and the rare class gets no more pull than the frequent one;
the same happens whenever every call holds one target. Public report: "CrossEntropyLoss
weight has no effect with batch size 1", https://github.com/pytorch/pytorch/issues/50528
(real-bug batch 186: balanced accuracy 0.49 against 0.82 with reduction="none" then
.mean(); PyTorch documents the weighted mean as intended).

Read from ``run.observed.loss_calls`` (``LossCall.class_weights``, ``reduction``,
``target_shape``): every judged call of a class-index loss carries weights that are not all
equal, the mean reduction, and a target of one element, on at least MIN_ONE_TARGET_CALLS calls.
"""
import math

from ..findings import Finding
from .context import CLASS_INDEX_LOSSES, judged_loss_calls
from .graph import rule

MIN_ONE_TARGET_CALLS = 3   # [design] judged calls, each of one target (a batch of one is the
                   # loop's habit, not a last short batch)


def _one_target(call):
    return call.target_shape is not None and math.prod(call.target_shape) == 1


@rule(produces="CLASS_WEIGHTS_CANCELLED_BY_MEAN",
      explains={"RARE_CLASS_NEVER_PREDICTED", "LOSS_PLATEAU"})
def class_weights_cancelled_by_mean(ctx):
    calls = judged_loss_calls(ctx, CLASS_INDEX_LOSSES)
    if len(calls) < MIN_ONE_TARGET_CALLS or not all(
            c.class_weights and len(set(c.class_weights)) > 1 and c.reduction == "mean"
            and _one_target(c) for c in calls):
        return None
    weights = calls[0].class_weights
    return Finding(
        code="CLASS_WEIGHTS_CANCELLED_BY_MEAN", severity="warning", where=calls[0].loss,
        step=calls[0].step,
        message=f"{calls[0].loss} has class weights ({', '.join(f'{w:.3g}' for w in weights[:6])}"
                f"{', ...' if len(weights) > 6 else ''}) and the mean reduction, and each of its "
                f"{len(calls)} recorded calls holds one target: the weighted mean divides "
                "that target's weight out again (w l / w = l), so the weights do nothing and "
                "the rare classes count no more than the frequent ones.",
        evidence={"class_weights": list(weights[:20]), "calls": len(calls),
                  "target_shape": list(calls[0].target_shape)},
        fix="Use reduction='none' and average the weighted losses yourself "
            "(loss_fn(out, y).mean() over the steps you accumulate), or train on batches of "
            "several samples.")
