"""POS_WEIGHT_PASSED_AS_WEIGHT: weights for rare positives handed to a binary loss's
``weight=`` instead of its ``pos_weight=``.

``BCEWithLogitsLoss(weight=w)`` multiplies a label's whole loss by w - its negatives as
much as its positives - so the balance inside the label, the few positives against the
many negatives, is exactly what it was unweighted. ``pos_weight=w`` multiplies the
positive term only: that is what counters rare positives. Weights computed as negatives /
positives per label (tens, where positives are a few percent) and passed as ``weight``
leave the imbalance as it was; the tagger learns to answer "absent" everywhere and looks
like any unweighted multi-label run (real-bug batch 62; the same trap is described in
https://github.com/pytorch/pytorch/issues/5157).

What the rule reads, on the loss calls the monitor keeps (``run.observed.loss_calls``): a
binary loss whose ``weight`` is one number per output column (``class_weights``, read off
the loss module or call) with no ``pos_weight``, and the share of 1s in each column of the
first label rows (``label_shares``). It names the cause when the positives are rare (the
median column is positive in at most ``BCE_RARE_SHARE`` of the rows) and the weights lift
them (median weight at least ``BCE_WEIGHT_ABOVE``) the way a balancing formula does - the
rarer a column's positives, the larger its weight (rank agreement at least
``BCE_RANK_AGREEMENT`` when the columns' shares differ), or, when every column is about
as rare, weights about negatives / positives. It is a warning when the rare positives go
unpredicted (RARE_POSITIVES_NEVER_PREDICTED) or learning is poor; otherwise info. Cost:
none beyond what the loss calls already carry.

Healthy look-alikes: per-label weights given together with a ``pos_weight`` (both in use on
purpose) and weights on labels whose positives are common are left alone; weights below 1
or unrelated to the labels' rarity (importance weights) are not a balancing formula.
"""
import numpy as np

from ..findings import Finding
from .context import fmt, judged_only
from .curve import learning_poor
from .graph import rule

BINARY_LOSSES = {"BCEWithLogitsLoss", "binary_cross_entropy_with_logits", "BCELoss",
                 "binary_cross_entropy"}
BCE_RARE_SHARE = 0.2        # [design] the median label is positive in at most a fifth of the
                            # rows: unweighted, "absent" is the cheap answer there
BCE_WEIGHT_ABOVE = 2.0      # [design] the median weight at least 2: the weights are meant to
                            # lift labels, not a mild importance tweak
BCE_RANK_AGREEMENT = 0.5    # [design] Spearman correlation of the weights with 1 / share when
                            # the columns' shares differ: rarer columns weigh more
BCE_SPREAD = 3.0            # [design] the shares "differ" when the 90th / 10th percentile of
                            # the positive columns' shares is at least this
BCE_RATIO_BAND = 4.0        # [design] otherwise the median weight is within this factor of the
                            # median negatives / positives: a balancing formula's value
BCE_MIN_LABEL_ROWS = 64     # [design] label rows read before shares are trusted


def _ranks(values):
    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(len(values))
    return ranks


def balancing_weights(weights, shares):
    """Evidence (dict) when per-column ``weights`` look computed to lift rare positives
    (``shares``: each column's share of 1s), else None."""
    w = np.asarray(weights, dtype=float)
    p = np.asarray(shares, dtype=float)
    if len(w) != len(p) or len(w) < 2 or not np.isfinite(w).all() or not np.isfinite(p).all():
        return None
    median_share = float(np.median(p))
    if median_share > BCE_RARE_SHARE or float(np.median(w)) < BCE_WEIGHT_ABOVE:
        return None
    seen = p > 0
    if seen.sum() < 2:
        return None
    balanced = (1 - p[seen]) / p[seen]
    spread = float(np.percentile(p[seen], 90) / np.percentile(p[seen], 10))
    if spread >= BCE_SPREAD:
        agreement = float(np.corrcoef(_ranks(w[seen]), _ranks(balanced))[0, 1])
        if not np.isfinite(agreement) or agreement < BCE_RANK_AGREEMENT:
            return None
    else:
        agreement = None
        ratio = float(np.median(w[seen]) / np.median(balanced))
        if not 1 / BCE_RATIO_BAND <= ratio <= BCE_RATIO_BAND:
            return None
    return {"median_weight": float(np.median(w)), "median_share": median_share,
            "median_balanced_pos_weight": float(np.median(balanced)),
            "rank_agreement": agreement, "labels": int(len(w))}


def _pooled_shares(calls, columns):
    """Each column's share of 1s over the calls' label rows, and the rows read."""
    total, rows = np.zeros(columns), 0
    for call in calls:
        if call.label_shares and len(call.label_shares) == columns and call.label_rows:
            total += np.asarray(call.label_shares, dtype=float) * call.label_rows
            rows += call.label_rows
    return (None, 0) if rows == 0 else (total / rows, rows)


@rule(produces="POS_WEIGHT_PASSED_AS_WEIGHT", reads={"RARE_POSITIVES_NEVER_PREDICTED"},
      explains={"RARE_POSITIVES_NEVER_PREDICTED", "LOSS_PLATEAU"})
def pos_weight_passed_as_weight(ctx):
    observed = getattr(ctx.run, "observed", None)
    if observed is None:
        return None
    calls = [c for c in judged_only(ctx, observed.loss_calls) if c.loss in BINARY_LOSSES
             and c.class_weights and c.pos_weight is None and len(tuple(c.output_shape)) == 2
             and len(c.class_weights) == tuple(c.output_shape)[1]]
    if not calls:
        return None
    weights, columns = calls[0].class_weights, tuple(calls[0].output_shape)[1]
    shares, rows = _pooled_shares([c for c in calls if c.class_weights == weights], columns)
    if shares is None or rows < BCE_MIN_LABEL_ROWS:
        return None
    evidence = balancing_weights(weights, shares)
    if evidence is None:
        return None
    unpredicted = "RARE_POSITIVES_NEVER_PREDICTED" in ctx.found
    poor = unpredicted or learning_poor(ctx)
    e = evidence
    return Finding(
        code="POS_WEIGHT_PASSED_AS_WEIGHT", severity="warning" if poor else "info",
        where=calls[0].loss, step=int(calls[0].step),
        message=f"{calls[0].loss} is given one weight per label (median {fmt(e['median_weight'])}, "
                f"{e['labels']} labels) as weight=, with no pos_weight, on labels whose "
                f"positives are rare (the median label is positive in "
                f"{fmt(100 * e['median_share'])}% of the rows; negatives / positives would be "
                f"{fmt(e['median_balanced_pos_weight'])}). weight= scales a label's negatives as "
                "much as its positives, so the imbalance the weights were computed for is "
                "left as it was" +
                ("; the rare positives go unpredicted." if unpredicted else
                 ", and learning is poor." if poor else "."),
        evidence={**evidence, "label_rows": rows, "rare_positives_unpredicted": unpredicted},
        fix="Pass the same tensor as pos_weight= (BCEWithLogitsLoss(pos_weight=negatives / "
            "positives), one per label): it multiplies the positive term only. Keep weight= "
            "for weighting whole labels or rows against each other.")
