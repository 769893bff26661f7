"""Batches of one class: training data stored class by class and read without shuffling.

An image folder, a table sorted by label, datasets concatenated class after class: read in
order (``shuffle=False``), each batch holds a single class. Every step then pulls the model
toward the current class and away from the previous ones, so the loss swings or stays near
chance, long before a second epoch could show that the order repeats (DATA_ORDER_REPEATS).

It shows in the targets that reach a class-index loss (cross-entropy, NLL): the monitor
summarises a sample of them on its first recorded calls (``run.observed.loss_calls``, see
``nndebug.monitor.target_ids``). Sorted data makes most batches nearly all one class, and
not the same class from batch to batch. A shuffled batch holds each class about as often as
the dataset does; a class-imbalanced dataset lets one class dominate many batches, but
always the same one.
"""
from ..findings import Finding
from .context import MAJORITY
from .graph import rule

ONE_CLASS_SHARE = 0.9       # [design] a batch whose targets are 90% or more one class; a
                            # shuffled batch of 8 from 3 balanced classes is all one class
                            # with probability 3 * (1/3)^8 < 0.001
MIN_BATCH = 8               # [design] smaller batches are one class by chance far more often
                            # (a batch of one always is)
MIN_CALLS = 3               # [design] loss calls with a target summary before judging
MIN_DOMINANT_CLASSES = 2    # [design] different batches dominated by different classes: one
                            # class everywhere is imbalance (CLASS_IMBALANCE), not order
PER_SAMPLE_LOSSES = {"CrossEntropyLoss", "cross_entropy", "NLLLoss", "nll_loss"}


BINARY_LOSSES = {"BCEWithLogitsLoss", "binary_cross_entropy_with_logits", "BCELoss",
                 "binary_cross_entropy"}   # (real-bug batch 137) one 0/1 column per sample


def one_class_batches(loss_calls):
    """(flagged calls, calls judged) among the loss calls with one class label per sample,
    where a flagged call's targets are at least ONE_CLASS_SHARE one class, as
    [(call, its majority class, that class's share)]: class ids of a cross-entropy, or the
    0/1 labels of a binary loss's single column (``label_shares``: the share of 1s in the
    first rows; a graph dataset sorted by label and read in order, real-bug batch 137)."""
    judged = []
    for c in loss_calls:
        if c.target_shape is None or not c.target_shape or c.target_shape[0] < MIN_BATCH:
            continue
        if c.loss in PER_SAMPLE_LOSSES and c.target_mode_share is not None \
                and len(c.target_shape) == 1:
            judged.append((c, c.target_mode, c.target_mode_share))
        elif c.loss in BINARY_LOSSES and c.label_shares is not None and \
                len(c.label_shares) == 1 and (c.label_rows or 0) >= MIN_BATCH:
            ones = c.label_shares[0]
            judged.append((c, 1.0 if ones >= 0.5 else 0.0, max(ones, 1.0 - ones)))
    flagged = [entry for entry in judged if entry[2] >= ONE_CLASS_SHARE]
    return flagged, judged


@rule(produces="BATCHES_OF_ONE_CLASS",
      explains={"LOSS_OSCILLATING", "LOSS_AT_CHANCE", "LOSS_PLATEAU", "LOSS_DIVERGING"})
def batches_of_one_class(ctx):
    observed = getattr(ctx.run, "observed", None)
    if observed is None or not observed.loss_calls:
        return None
    flagged, judged = one_class_batches(observed.loss_calls)
    dominant = sorted({mode for _, mode, _ in flagged})
    if len(judged) < MIN_CALLS or len(flagged) < MAJORITY * len(judged) or \
            len(dominant) < MIN_DOMINANT_CLASSES:
        return None
    return Finding(
        code="BATCHES_OF_ONE_CLASS", severity="warning", where="", step=flagged[0][0].step,
        message=f"{len(flagged)} of {len(judged)} sampled training batches are (nearly) all one "
                f"class, a different class from batch to batch (classes "
                f"{', '.join(f'{d:g}' for d in dominant[:6])}): the data is read in class order, "
                "so each step pulls the model toward the current class and away from the "
                "others.",
        evidence={"batches_one_class": len(flagged), "batches_sampled": len(judged),
                  "dominant_classes": dominant,
                  "shares": [round(share, 3) for _, _, share in judged],
                  "steps": [c.step for c, _, _ in flagged], "threshold_share": ONE_CLASS_SHARE},
        fix="Shuffle the training data every epoch (DataLoader(..., shuffle=True), or a "
            "random sampler); a dataset stored class by class must never be read in order.")
