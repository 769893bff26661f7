"""Every target of a regression or binary loss is one value: nothing is left to learn.

TARGETS_ALL_ONE_VALUE. Implicit feedback (clicks, purchases, links) lists only what
happened: turned into training pairs as it comes, every target is 1. A model that answers 1
for everything - a bias is enough - makes the loss zero, so it learns exactly that and the
scores rank nothing. The fix is to show it what did not happen: random unobserved pairs
labelled 0 (negative sampling), or a ranking loss over sampled negatives.

``target_kinds.py`` names the class-index form (TARGETS_ALL_ONE_CLASS). A binary or
regression loss is judged here, and only where three things hold, because all-ones targets
are also written on purpose:

- every recorded call of the loss got one single target value (``LossCall.target_min`` equal
  to ``target_max`` and the same on every call);
- that call is the whole loss: the loss's graph (``run.observed.loss_reductions``) has one
  addend, the call's own operation, over the call's batch (or a whole multiple of it:
  positives and negatives concatenated). A GAN's discriminator step adds a
  second call (the fakes against 0s), and the first call seen in a step can belong to
  another network's loss;
- the loss fell to almost nothing (its last window below ``NEAR_ZERO`` of the first): the
  model found the constant answer. A GAN generator trained against all-ones "real" targets
  has an opponent, and its loss does not vanish.
"""
from ..findings import Finding
from .context import fmt, judged_loss_calls, observed_list
from .graph import rule

# the graph operation each loss leaves as its addend (torch's backward node names)
LOSS_OPERATIONS = {
    "MSELoss": "MseLossBackward0", "mse_loss": "MseLossBackward0",
    "SmoothL1Loss": "SmoothL1LossBackward0", "smooth_l1_loss": "SmoothL1LossBackward0",
    "HuberLoss": "HuberLossBackward0", "huber_loss": "HuberLossBackward0",
    "BCEWithLogitsLoss": "BinaryCrossEntropyWithLogitsBackward0",
    "binary_cross_entropy_with_logits": "BinaryCrossEntropyWithLogitsBackward0",
    "BCELoss": "BinaryCrossEntropyBackward0",
    "binary_cross_entropy": "BinaryCrossEntropyBackward0",
}
CONSTANT_TARGET_MIN_CALLS = 3  # [design] recorded loss calls needed before a verdict on targets
NEAR_ZERO = 0.2               # [measured] last window median / first window median of the
                              # loss: 0.036 on the all-ones recommender case, 0.78 on a
                              # least-squares GAN's generator (test_real_bug_rules_31.py);
                              # the threshold sits between them, a factor of 4-5 from each


def _whole_loss(ctx, call):
    """True when every recorded reduction of the loss is this call alone (one addend, the
    call's operation, over the call's batch or a whole multiple of the batch the addend
    was reduced over: real-bug batch 125's link predictor scores a batch of positive edges
    and as many negatives, concatenated into one call of twice the batch)."""
    operation = LOSS_OPERATIONS.get(call.loss)
    batch = call.output_shape[0] if call.output_shape else 1
    reductions = observed_list(ctx, "loss_reductions")
    if operation is None or not reductions:
        return False
    return all(len(addends) == 1 and addends[0][0] == operation and
               _divides(addends[0][3], batch) for _, addends in reductions)


def _divides(addend_batch, batch):
    return isinstance(addend_batch, int) and addend_batch > 0 and batch % addend_batch == 0


@rule(produces="TARGETS_ALL_ONE_VALUE", explains={"LOSS_PLATEAU"})
def targets_all_one_value(ctx):
    calls = judged_loss_calls(ctx, set(LOSS_OPERATIONS))
    summary = ctx.summary
    if len(calls) < CONSTANT_TARGET_MIN_CALLS or summary is None or summary["start"] <= 0:
        return None
    values = {c.target_min for c in calls} | {c.target_max for c in calls}
    if len(values) != 1 or len({c.loss for c in calls}) != 1:
        return None
    value = values.pop()
    if value != value or not _whole_loss(ctx, calls[0]):      # NaN, or not the whole loss
        return None
    drop = summary["end"] / summary["start"]
    if drop >= NEAR_ZERO:
        return None
    loss = calls[0].loss
    return Finding(
        code="TARGETS_ALL_ONE_VALUE", severity="warning", where=loss, step=calls[0].step,
        message=f"Every target {loss} got is {fmt(value)}, on all {len(calls)} recorded "
                f"calls, and the loss fell to {fmt(drop * 100)}% of its start: a model that "
                f"answers {fmt(value)} for every input is perfect on this data, so that is "
                "what it learned, and its scores rank nothing. Implicit feedback (clicks, "
                "purchases, links) lists only what happened: without pairs that did not "
                "happen, there is nothing to tell apart.",
        evidence={"loss": loss, "target": value, "calls": len(calls),
                  "loss_end_over_start": drop},
        fix="Add negatives: for each batch of observed pairs, draw as many random unobserved "
            "ones (users with random items, nodes with random nodes) labelled 0, or train "
            "with a ranking loss (BPR) against sampled negatives. If the targets were meant "
            "to vary, check how they are built.")
