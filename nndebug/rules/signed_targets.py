"""SIGNED_TARGETS_AS_ZERO_ONE: a loss whose target must be +1 or -1 got 0s and 1s.

``CosineEmbeddingLoss``, ``HingeEmbeddingLoss``, ``MarginRankingLoss`` and
``SoftMarginLoss`` read +1 as "similar / the first input ranks higher / positive" and -1 as
the opposite; torch checks neither (pytorch/pytorch#23782: "works with any values"). A
target written the usual binary way, 0 for "different", falls in no branch of the first
two - the pair adds zero loss and zero gradient - and gives the ranking loss a constant
``margin`` with no gradient: every "different" example stops teaching, and a siamese model
trained on the "same" pairs alone learns to call everything similar. Seen with 0/1 pair
labels for the cosine loss and for the ranking loss (seathiefwang/RankPose#4: "y expect 1
or -1, but labels only has value in 0 or 1").

A target of only +1s or only -1s is a legitimate choice (pairs ordered so the first always
wins); the signal is 0 values next to 1s and no -1 at all - exactly what a 0/1 label
gives. Reads ``run.observed.signed_targets`` (``monitor/signed_targets.py``): value counts
of the first recorded calls' targets, read when findings are asked for.
"""
from ..findings import Finding
from .graph import rule

SIGNED_MIN_CALLS = 2         # [design] calls read before a verdict: one batch may be odd
SIGNED_ZERO_SHARE = 0.05     # [design] share of 0 targets that must be there: a 0/1 label
                             # of a pair task gives ~half; 5% still means one in twenty
                             # examples teaches nothing, while a stray exact 0 in a real
                             # +1/-1 target is not possible at all


@rule(produces="SIGNED_TARGETS_AS_ZERO_ONE")
def signed_targets_as_zero_one(ctx):
    observed = getattr(ctx.run, "observed", None)
    reads = list(getattr(observed, "signed_targets", None) or [])
    if len(reads) < SIGNED_MIN_CALLS:
        return None
    values = sum(r[2] for r in reads)
    plus, minus, zeros = (sum(r[i] for r in reads) for i in (3, 4, 5))
    binary = plus + zeros == values and minus == 0
    if not values or not binary or not plus or zeros < SIGNED_ZERO_SHARE * values:
        return None
    step, loss = reads[0][0], reads[0][1]
    return Finding(
        code="SIGNED_TARGETS_AS_ZERO_ONE", severity="warning", where=loss,
        step=None if step < 0 else step,
        message=f"{loss} takes a target of +1 or -1, but its targets are 0s and 1s "
                f"({zeros} zeros, {plus} ones, no -1, in {len(reads)} recorded calls). torch "
                "does not check the values: a 0 falls in neither branch, so those examples "
                "add a constant (or zero) loss and no gradient, and the half of the data "
                "meant to push apart (or rank the other way) never teaches.",
        evidence={"loss": loss, "zeros": zeros, "ones": plus, "minus_ones": minus,
                  "values": values, "calls": len(reads)},
        fix="Map the labels to signs before the loss: target = 2 * label - 1 (1 stays 1, "
            "0 becomes -1).")
