"""SOFT_TARGETS_NOT_DISTRIBUTIONS: cross-entropy given float targets of the logits' shape,
read as class probabilities, whose rows do not sum to 1.

torch accepts any float target of the output's shape as class probabilities and checks
neither the sign nor the sum of a row. A row that sums to s weighs its sample s times in the
loss and pulls the softmax towards the row divided by s, not towards the row: the loss the
run prints is not the one it meant, and the optimum moves with it. Seen in a hand-written
label smoothing that keeps the true class at 1 and adds eps/K to every class
(ildoonet/pytorch-randaugment#30: rows sum to 1 + eps (K-1)/K); the same signal catches a
teacher's logits passed where its probabilities go and vote counts left undivided. Rows of
0/1 labels with several 1s are MULTI_LABEL_WITH_CROSS_ENTROPY (a different mistake: the
wrong loss); rows that are all zero (a sample masked out on purpose) are left out.

Reads ``run.observed.soft_target_rows`` (``monitor/soft_target_rows.py``): the row sums of
the first rows of the first recorded calls' targets, copied to the host when findings are
asked for.
"""
import statistics

from ..findings import Finding
from .context import MAJORITY, fmt
from .graph import rule

SOFT_TARGET_CALLS = 3        # [design] targets read before a verdict (target_kinds.py's
                             # MIN_TARGET_CALLS); the loss capture keeps the first four
SOFT_TARGET_ROWS = 16        # [design] non-zero rows read before a verdict
TARGET_SUM_TOLERANCE = 0.02  # [design] a softmax, a smoothed one-hot or a mixup row sums to 1
                             # up to float32 rounding (1e-6 per class); a row stored in
                             # bfloat16 (8 significant bits) is off by ~0.4% at most. 0.02 is
                             # five times that, under the smoothing bug's eps (K-1)/K
MASKED_ROW_SUM = 1e-12       # [design] a row summing to 0: a sample given no target on purpose


@rule(produces="SOFT_TARGETS_NOT_DISTRIBUTIONS", reads={"MULTI_LABEL_WITH_CROSS_ENTROPY"})
def soft_targets_not_distributions(ctx):
    if "MULTI_LABEL_WITH_CROSS_ENTROPY" in ctx.found:
        return None
    observed = getattr(ctx.run, "observed", None)
    reads = list(getattr(observed, "soft_target_rows", None) or [])
    if len(reads) < SOFT_TARGET_CALLS:
        return None
    off, sums = [], []
    for step, loss, row_sums in reads:
        kept = [s for s in row_sums if abs(s) > MASKED_ROW_SUM]
        if not kept:
            continue
        sums.extend(kept)
        if statistics.median(abs(s - 1.0) for s in kept) > TARGET_SUM_TOLERANCE:
            off.append((step, loss))
    if len(sums) < SOFT_TARGET_ROWS or len(off) < MAJORITY * len(reads) or not off:
        return None
    typical = statistics.median(sums)
    loss = off[0][1]
    return Finding(
        code="SOFT_TARGETS_NOT_DISTRIBUTIONS", severity="warning", where=loss, step=off[0][0],
        message=f"{loss} got float targets of the logits' shape, which it reads as class "
                f"probabilities, but their rows sum to {fmt(typical)} (from {fmt(min(sums))} "
                f"to {fmt(max(sums))}, {len(sums)} rows of {len(reads)} recorded calls), not "
                "1. torch checks neither the sum nor the sign of a row: each sample's loss is "
                "scaled by its row's sum and the softmax is pulled towards the row divided by "
                "that sum, so the loss printed and the distribution learned are not the ones "
                "the targets were meant to give.",
        evidence={"loss": loss, "median_row_sum": typical, "min_row_sum": min(sums),
                  "max_row_sum": max(sums), "rows": len(sums), "calls_off": len(off),
                  "calls": len(reads)},
        fix="Build each target row as a distribution: label smoothing as (1 - eps) * one_hot "
            "+ eps / K (or F.cross_entropy(..., label_smoothing=eps) on class ids), a "
            "teacher's softmax (not its logits), vote counts divided by their total.")
