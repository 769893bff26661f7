"""CLASS_WEIGHTS_REVERSED: class weights that grow with how often a class occurs.

Weights on a class-index loss (``CrossEntropyLoss(weight=...)``, ``F.nll_loss(...,
weight=...)``) are there to make rare classes count more: the usual choice is one over the
class's frequency (scikit-learn's ``class_weight="balanced"``). Written in the wrong order,
the frequent class gets the large weight, the loss pushes the model further towards it, and
the rare class is almost never predicted; the loss itself looks fine.

What the rule reads: the weights of the loss calls the monitor saw, and how often each class
id occurred in the targets that reached them (``LossCall.target_counts``, a sample of the
first recorded calls). The check, ``weights_follow_frequency``, is a plain function tested
alone. The same cause on a binary loss - a ``pos_weight`` below 1 where the positives are
rare, positives / negatives instead of negatives / positives - is read in
``rules/pos_weights.py`` (real-bug batch 54) and named with this code.
"""
import numpy as np

from ..findings import Finding
from .context import CLASS_INDEX_LOSSES, fmt, judged_only
from .graph import rule
from .pos_weights import reversed_pos_weight

MIN_TARGETS = 200          # [design] sampled targets before class frequencies are trusted
IMBALANCE = 3.0            # [design] most / least frequent class: weights matter from here on
WEIGHT_RATIO = 1.5         # [design] the frequent class's weight this much above the rare's
RANK_AGREEMENT = 0.8       # [design] Spearman correlation of weights and frequencies above which
                           # the weights rise with frequency (inverse-frequency weights: -1)


def _ranks(values):
    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(len(values))
    return ranks


def weights_follow_frequency(weights, counts):
    """Evidence (dict) when class weights rise with the classes' frequencies in imbalanced
    targets, else None. ``weights``: one per class; ``counts``: occurrences of each class id
    in the sampled targets (classes never seen are left out)."""
    weights = np.asarray(weights, dtype=float)
    counts = np.asarray(counts, dtype=float)[:len(weights)]
    seen = np.flatnonzero(counts > 0)
    if len(seen) < 2 or counts.sum() < MIN_TARGETS or not np.isfinite(weights).all():
        return None
    w, n = weights[seen], counts[seen]
    frequent, rare = seen[np.argmax(n)], seen[np.argmin(n)]
    if n.max() < IMBALANCE * n.min() or np.ptp(w) <= 0:
        return None
    if weights[frequent] < WEIGHT_RATIO * weights[rare]:
        return None
    agreement = 1.0 if len(seen) == 2 else \
        float(np.corrcoef(_ranks(w), _ranks(n))[0, 1])
    if agreement < RANK_AGREEMENT:
        return None
    share = counts / counts.sum()
    return {"frequent_class": int(frequent), "frequent_share": float(share[frequent]),
            "frequent_weight": float(weights[frequent]), "rare_class": int(rare),
            "rare_share": float(share[rare]), "rare_weight": float(weights[rare]),
            "rank_correlation": agreement, "targets_sampled": int(counts.sum())}


@rule(produces="CLASS_WEIGHTS_REVERSED", explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def class_weights_reversed(ctx):
    observed = getattr(ctx.run, "observed", None)
    if observed is None:
        return None
    calls = [c for c in judged_only(ctx, observed.loss_calls) if c.loss in CLASS_INDEX_LOSSES
             and c.class_weights and c.target_counts]
    if not calls:
        return _reversed_pos_weight_finding(ctx, observed.loss_calls)   # real-bug batch 54
    weights = calls[0].class_weights
    counts = np.zeros(len(weights))
    for call in calls:
        if call.class_weights == weights:
            n = min(len(weights), len(call.target_counts))
            counts[:n] += call.target_counts[:n]
    evidence = weights_follow_frequency(weights, counts)
    if evidence is None:
        return None
    e = evidence
    return Finding(
        code="CLASS_WEIGHTS_REVERSED", severity="warning", where=calls[0].loss,
        step=calls[0].step,
        message=f"{calls[0].loss}'s class weights grow with how often a class occurs: class "
                f"{e['frequent_class']} ({fmt(100 * e['frequent_share'])}% of the targets) "
                f"weighs {fmt(e['frequent_weight'])}, class {e['rare_class']} "
                f"({fmt(100 * e['rare_share'])}%) weighs {fmt(e['rare_weight'])}. Weights are "
                "meant to make rare classes count more; these push the model further towards "
                "the frequent class, so the rare one is seldom predicted.",
        evidence={**evidence, "weights": list(weights)},
        fix="Give each class the inverse of its frequency (weight[c] = 1 / share of class c, "
            "scikit-learn's class_weight='balanced'); check the order of the classes the "
            "weights were written in.")


def _reversed_pos_weight_finding(ctx, loss_calls):
    """The same cause on a binary loss: a ``pos_weight`` below 1 where the positives are
    rare (positives / negatives instead of negatives / positives, ``rules/pos_weights.py``)."""
    found = reversed_pos_weight(ctx, loss_calls)
    if found is None:
        return None
    e, call = found
    return Finding(
        code="CLASS_WEIGHTS_REVERSED", severity="warning", where=call.loss, step=call.step,
        message=f"{call.loss}'s pos_weight is below 1 on labels whose positives are rare "
                f"(median {fmt(e['median_pos_weight'])} over {e['minority_labels']} of "
                f"{e['labels']} labels): label {e['rarest_label']}, positive in "
                f"{fmt(100 * e['rarest_share'])}% of the targets, has pos_weight "
                f"{fmt(e['rarest_pos_weight'])} where negatives / positives is "
                f"{fmt(e['balanced_pos_weight'])}. It looks computed upside down (positives "
                "/ negatives): the rare positives count even less than unweighted, and the "
                "model learns to predict almost every label absent.",
        evidence=e,
        fix="pos_weight = negatives / positives for each label (e.g. (len(y) - y.sum(0)) / "
            "y.sum(0)), a number above 1 where positives are rare.")
