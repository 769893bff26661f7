"""A binary loss's ``pos_weight`` written upside down: positives / negatives.

``BCEWithLogitsLoss(pos_weight=...)`` multiplies the loss of each label's positive samples;
to make rare positives count as much as the negatives it is negatives / positives (one per
label in a multi-label task), a number above 1 wherever the positives are the minority.
Computed the other way round (positives / negatives) every weight falls below 1 and the
rare positives count even LESS than they did unweighted: the logits are pushed down, and
the model almost never predicts a label present, while the loss looks settled. Public
report: a multi-label run whose F1 and recall were near zero, the model "almost always
guessing 0", https://cloud.tencent.com.cn/developer/article/2568430 (the cause: "I had used
pos/neg, not neg/pos").

This module holds the check (a plain function, tested alone) and the reading of the
recorded loss calls; the finding is CLASS_WEIGHTS_REVERSED (``rules/class_weights.py``,
the same cause for a class-index loss's ``weight=``). Read: the loss's ``pos_weight``
(``LossCall.pos_weight``, from the loss module or call) and each label's share of positives
in the first target rows of the first recorded calls (``LossCall.label_shares``): no extra
work during training. A pos_weight below 1 on labels whose positives are the MAJORITY is
the right balance and passes.
"""
import numpy as np

from .context import judged_only

BINARY_LOGIT_LOSSES = {"BCEWithLogitsLoss", "binary_cross_entropy_with_logits"}
POS_WEIGHT_MIN_ROWS = 128      # [design] target rows read before the label shares are trusted
POS_WEIGHT_MINORITY = 0.5      # [design] a label's positives are the minority below this share
POS_WEIGHT_CEILING = 2 / 3     # [design] the median weight over the minority labels at most
                               # this: positives count at most 2/3 of a negative (the
                               # reciprocal of CLASS_WEIGHTS_REVERSED's 1.5 weight ratio)
POS_WEIGHT_LABELS_BELOW_ONE = 0.8   # [design] this share of the minority labels weighted
                                    # below 1 (a few hand-set weights may differ)


def pos_weight_shrinks_positives(pos_weight, shares):
    """Evidence (dict) when ``pos_weight`` (one number, or one per label) is below 1 on the
    labels whose positives are the minority (``shares``: each label's share of positive
    targets), so the rare positives count even less than the negatives; else None."""
    shares = np.asarray(shares, dtype=float)
    weights = np.asarray(pos_weight, dtype=float)
    if weights.size == 1:
        weights = np.full(shares.shape, float(weights.reshape(-1)[0]))
    if weights.shape != shares.shape or not np.all(np.isfinite(weights)):
        return None
    minority = (shares > 0) & (shares < POS_WEIGHT_MINORITY)
    if minority.sum() == 0 or minority.sum() < 0.5 * len(shares):
        return None                 # most labels' positives are not the minority
    weighted = weights[minority]
    if np.median(weighted) > POS_WEIGHT_CEILING or \
            np.mean(weighted < 1.0) < POS_WEIGHT_LABELS_BELOW_ONE:
        return None
    labels = np.flatnonzero(minority)
    rarest = int(labels[np.argmin(shares[labels])])
    return {"labels": int(len(shares)), "minority_labels": int(minority.sum()),
            "median_pos_weight": float(np.median(weighted)),
            "rarest_label": rarest, "rarest_share": float(shares[rarest]),
            "rarest_pos_weight": float(weights[rarest]),
            "balanced_pos_weight": float((1 - shares[rarest]) / shares[rarest])}


def reversed_pos_weight(ctx, loss_calls):
    """(evidence, first call) when the recorded binary-logit loss calls carry a pos_weight
    that shrinks their minority positives (``pos_weight_shrinks_positives``), else None."""
    calls = [c for c in judged_only(ctx, loss_calls) if c.loss in BINARY_LOGIT_LOSSES
             and c.pos_weight and c.label_shares and c.label_rows]
    if not calls:
        return None
    weights = calls[0].pos_weight
    same = [c for c in calls if c.pos_weight == weights
            and len(c.label_shares) == len(calls[0].label_shares)]
    rows = sum(c.label_rows for c in same)
    if rows < POS_WEIGHT_MIN_ROWS:
        return None
    shares = sum(np.asarray(c.label_shares) * c.label_rows for c in same) / rows
    evidence = pos_weight_shrinks_positives(weights, shares)
    if evidence is None:
        return None
    return {**evidence, "target_rows": int(rows)}, calls[0]
