"""A binary classifier that has settled on never predicting the positive class.

RARE_POSITIVES_NEVER_PREDICTED: late in the run, every recorded batch still holds positive
targets, and not one of the model's outputs in it is on the positive side (a logit above
0, a probability above one half).

With rare positives (one row in six, one in a hundred) an unweighted binary cross-entropy
is lowest, early on and for a long while, when the model answers "negative" everywhere:
the loss settles, the accuracy reads like the negatives' share, and no positive is ever
found. Public report: "Predictions stuck at zero when positive label (1) is only 16% of
data", https://discuss.pytorch.org/t/predictions-stuck-at-zero-when-positive-label-1-is-
only-16-of-data/145203 (the answer: BCEWithLogitsLoss's pos_weight, negatives over
positives). A model that learns the positives puts some outputs above the threshold in
batches that hold positives; one at the start of training has outputs on both sides of it;
so only the last recorded calls are read, and only when all of them agree.

Read from the recorded loss calls (``run.observed.loss_calls``: the output's largest value
and the targets' range on each recorded step, ``monitor/loss_capture.py``). One-column
outputs (a binary classifier), and only a loss known to average over the batch (a loss
module, or a call whose ``reduction`` was read): a summed term divided by the number of
positives (an SSD-style detector's objectness) already weighs the positives its own way.

A map of one-column classifiers (real-bug batch 67) is read like one: a binary
segmentation's (N, 1, H, W) pixels or a region-proposal head's anchor scores against
targets of the same shape, unweighted. Public report: "Class imbalance for RPN",
https://github.com/matterport/Mask_RCNN/issues/43 (an RPN trained on every anchor
"overfits on only negative prediction"; balanced anchor batches fixed it).

A multi-label head (real-bug batch 54) is read too, but only as a whole: one rare label may
rightly stay negative in a batch, so the finding needs NO label of ANY row on the positive
side, in batches whose rows carry at least half a label each on average (the label shares
of the first target rows, ``LossCall.label_shares``), and a loss without ``pos_weight`` (a
weighted loss's own balance is CLASS_WEIGHTS_REVERSED's to judge), and not when the rows
are one-hot (SINGLE_LABEL_WITH_BCE names that cause). Public report: "500+
multi-labels only predicts zeros", https://github.com/appvision-ai/fast-bert/issues/52 (the
answer: pos_weight; "the model learns to guess 0 all the time").

A one-column classifier with positives too rare to fill every batch (real-bug batch 261: 12
positives in 1,150 rows, one batch of 64 in two without any) is read from the last
LATE_CALLS recorded calls that DO hold positives, and then every recorded call from the
first of them on - with or without positives - must stay on the negative side. Its loss
may be an element-wise call (``reduction="none"``) that the script weighs and averages by
hand (a focal loss, per-row sample weights): a script whose weighting lifts the positives
puts some of them above the threshold, so all of the late outputs staying below it is still
the symptom. Public reports: "Shouldn't there be a `(1-alpha)` pre-factor for the
negatives?", https://github.com/mathiaszinnen/focal_loss_torch/issues/2 (the focal loss's
alpha given to the positives only, the negatives left at 1); "Per-Sample Weighting does not
work when valid_size is used", https://github.com/aigamedev/scikit-neuralnetwork/issues/238
(the balancing sample weights dropped from training).
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

# binary losses and where their input crosses from "negative" to "positive"
THRESHOLDS = {"BCEWithLogitsLoss": 0.0, "binary_cross_entropy_with_logits": 0.0,
              "BCELoss": 0.5, "binary_cross_entropy": 0.5}
LATE_CALLS = 3          # [design] the last recorded loss calls that must all agree
MIN_LAST_STEP = 50      # [design] the last of them at least this far into the run: a short
                        # run's model may still be learning its positives
ZERO_ONE_TOLERANCE = 1e-6  # [design] 0/1 targets up to float32 rounding
LABELS_PER_ROW = 0.5    # [design] a multi-label batch's rows carry at least this many labels
                        # on average: a 64-row batch then holds ~32 positives, and a model
                        # that learnt anything puts one of them above the threshold


def _one_column(shape):
    shape = tuple(shape or ())
    return len(shape) == 1 or (len(shape) == 2 and shape[1] == 1)


def _dense_one_channel(call):
    """One binary score per position of a map (real-bug batch 67): (N, 1, H, W...) or
    (N, H, W) scores against targets of the same shape - a binary segmentation's pixels, a
    region-proposal head's anchors - each position a one-column classifier of its own."""
    shape = tuple(call.output_shape or ())
    return len(shape) >= 3 and (shape[1] == 1 or len(shape) == 3) \
        and tuple(call.target_shape or ()) == shape and not call.pos_weight


def _label_head(call):
    """An unweighted multi-label head: (N, C) outputs against (N, C) 0/1 label rows."""
    shape = tuple(call.output_shape or ())
    return (len(shape) == 2 and shape[1] >= 2 and tuple(call.target_shape or ()) == shape
            and not call.pos_weight)


def _labels_per_row(calls):
    """The mean number of labels in a target row, from the label shares of the first
    recorded calls (None when none were read)."""
    read = [c for c in calls if c.label_shares and c.label_rows]
    if not read:
        return None
    return sum(sum(c.label_shares) * c.label_rows for c in read) / sum(c.label_rows for c in read)


def _binary_targets(call):
    return abs(call.target_min) <= ZERO_ONE_TOLERANCE and abs(call.target_max - 1.0) <= ZERO_ONE_TOLERANCE


@rule(produces="RARE_POSITIVES_NEVER_PREDICTED", reads={"SINGLE_LABEL_WITH_BCE"},
      explains={"LOSS_PLATEAU"})
def rare_positives_never_predicted(ctx):
    calls = [c for c in observed_list(ctx, "loss_calls") if c.loss in THRESHOLDS]
    late = calls[-LATE_CALLS:]
    if len(late) < LATE_CALLS or late[-1].step < MIN_LAST_STEP:
        return None
    if not all(_binary_targets(c) for c in late) or any(c.reduction == "none" for c in late):
        return _sparse_positives_never_predicted(calls)
    if len({c.loss for c in late}) != 1 or any(c.reduction != "mean" for c in late):
        return None
    threshold = THRESHOLDS[late[0].loss]
    if not all(_binary_targets(c) and c.output_max < threshold for c in late):
        return None
    labels_per_row = None
    if not all(_one_column(c.output_shape) or _dense_one_channel(c) for c in late):
        labels_per_row = _labels_per_row(calls)
        if not all(_label_head(c) for c in late) or labels_per_row is None \
                or labels_per_row < LABELS_PER_ROW or "SINGLE_LABEL_WITH_BCE" in ctx.found:
            return None     # one label per row: a single-label task, that rule's cause
        return _no_label_predicted(late, threshold, labels_per_row)
    loss = late[0].loss
    return Finding(
        code="RARE_POSITIVES_NEVER_PREDICTED", severity="warning", where=loss,
        step=int(late[0].step),
        message=(f"From step {late[0].step} on, the recorded batches hold positive targets "
                 f"but none of the model's outputs reaches the positive side of {loss} "
                 f"(largest output {max(c.output_max for c in late):.3g}, threshold "
                 f"{threshold:g}): the classifier answers 'negative' for every row. With "
                 "rare positives an unweighted binary cross-entropy rewards exactly that."),
        evidence={"loss": loss, "steps": [int(c.step) for c in late],
                  "output_max": [float(c.output_max) for c in late],
                  "threshold": threshold},
        fix=("weigh the positives: BCEWithLogitsLoss(pos_weight=torch.tensor(negatives / "
             "positives)) (or oversample them with a WeightedRandomSampler); judge the model "
             "by recall or balanced accuracy, not accuracy"))


def _no_label_predicted(late, threshold, labels_per_row):
    """The multi-label form: no label of any row is predicted present."""
    loss, labels = late[0].loss, late[0].output_shape[1]
    return Finding(
        code="RARE_POSITIVES_NEVER_PREDICTED", severity="warning", where=loss,
        step=int(late[0].step),
        message=(f"From step {late[0].step} on, the multi-label head predicts no label for "
                 f"any row: none of the {labels} label scores of any row in the recorded "
                 f"batches reaches the positive side of {loss} (largest "
                 f"{max(c.output_max for c in late):.3g}, threshold {threshold:g}), though "
                 f"the rows carry {labels_per_row:.2g} labels each on average. With sparse "
                 "labels an unweighted binary cross-entropy rewards answering 'absent' "
                 "everywhere."),
        evidence={"loss": loss, "labels": int(labels), "steps": [int(c.step) for c in late],
                  "output_max": [float(c.output_max) for c in late],
                  "threshold": threshold, "labels_per_row": float(labels_per_row)},
        fix=("weigh each label's positives: BCEWithLogitsLoss(pos_weight=negatives / "
             "positives), one weight per label (or a focal / asymmetric loss); judge the "
             "model by per-label recall or F1 at a tuned threshold, not by accuracy"))


def _sparse_positives_never_predicted(calls):
    """The one-column form when not every late batch holds a positive, or the loss is an
    element-wise call (real-bug batch 261):
    the last LATE_CALLS recorded calls with positives, the last of them at MIN_LAST_STEP or
    later, and no output on the positive side in any recorded call from the first of them
    on. One loss throughout, averaged over the batch or element-wise (reduction "none")."""
    with_positives = [i for i, c in enumerate(calls) if _binary_targets(c)][-LATE_CALLS:]
    if len(with_positives) < LATE_CALLS or calls[with_positives[-1]].step < MIN_LAST_STEP:
        return None
    tail = calls[with_positives[0]:]
    if len({c.loss for c in tail}) != 1 \
            or any(c.reduction not in ("mean", "none") for c in tail) \
            or not all(_one_column(c.output_shape) and not c.pos_weight for c in tail):
        return None
    loss = tail[0].loss
    threshold = THRESHOLDS[loss]
    if not all(c.target_min >= -ZERO_ONE_TOLERANCE and c.target_max <= 1 + ZERO_ONE_TOLERANCE
               and c.output_max < threshold for c in tail):
        return None
    held = [calls[i] for i in with_positives]
    return Finding(
        code="RARE_POSITIVES_NEVER_PREDICTED", severity="warning", where=loss,
        step=int(tail[0].step),
        message=(f"From step {tail[0].step} on, none of the model's outputs reaches the "
                 f"positive side of {loss} (largest {max(c.output_max for c in tail):.3g}, "
                 f"threshold {threshold:g}), though {len(held)} of the {len(tail)} recorded "
                 "batches hold positive targets: the classifier answers 'negative' for every "
                 "row. With rare positives a loss that does not lift them (unweighted, or "
                 "weighted the wrong way) rewards exactly that."),
        evidence={"loss": loss, "steps": [int(c.step) for c in tail],
                  "steps_with_positives": [int(c.step) for c in held],
                  "output_max": [float(c.output_max) for c in tail],
                  "threshold": threshold},
        fix=("weigh the positives: BCEWithLogitsLoss(pos_weight=torch.tensor(negatives / "
             "positives)), a focal loss's alpha on the positives and 1 - alpha on the "
             "negatives, or per-row weights that reach the training loss (or oversample "
             "them with a WeightedRandomSampler); judge the model by recall or balanced "
             "accuracy, not accuracy"))
