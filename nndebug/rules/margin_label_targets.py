"""MULTI_HOT_TARGETS_READ_AS_INDICES: a multi-hot 0/1 target given to a loss that reads
each target row as a list of class INDICES.

``nn.MultiLabelMarginLoss`` (``F.multilabel_margin_loss``) takes, for each sample, the ids
of its positive classes, read from the start of the row up to the first -1 (the padding).
A multi-hot row such as [0, 1, 0, 0, 1, ...] holds no -1, so the whole row is read and its
values name class 0 and class 1 - and only them - as the positives of EVERY sample: the
model learns to rank labels 0 and 1 first whatever the input shows, and the loss falls as
if it learnt. Nothing fails: the values are valid ids. Public report: "Improving docs for
MultiLabelSoftMarginLoss", https://github.com/pytorch/pytorch/issues/15863 (a widely
followed example "uses a onehot instead of class indices with negative number padding";
the docs were changed to spell out the format).

The signal is exact and free: a correct index target over C >= 3 classes holds a -1 in
every row that has fewer than C positives, so its minimum is -1; a row of C distinct ids
can never consist of 0s and 1s alone. A target whose values all lie in {0, 1} on every
recorded call (``LossCall.target_min`` / ``target_max``, taken in the step's one transfer
with the loss call's other numbers, ``monitor/loss_capture.py``) is a multi-hot row read as
ids.
"""
from ..findings import Finding
from .context import judged_loss_calls
from .graph import rule

INDEX_LIST_LOSSES = {"MultiLabelMarginLoss", "multilabel_margin_loss"}
MARGIN_MIN_CALLS = 2      # [design] recorded calls that must all agree (one batch could, in
                          # principle, give every sample every class)
MARGIN_MIN_CLASSES = 3    # [design] with 3+ classes a row of distinct ids cannot be all 0s
                          # and 1s; with 2, [0, 1] is a valid "both classes" row


def _zero_one_rows(call):
    shape = tuple(call.output_shape or ())
    return (len(shape) == 2 and shape[1] >= MARGIN_MIN_CLASSES
            and tuple(call.target_shape or ()) == shape
            and call.target_min == 0.0 and call.target_max == 1.0)


@rule(produces="MULTI_HOT_TARGETS_READ_AS_INDICES", explains={"LOSS_PLATEAU"})
def multi_hot_targets_read_as_indices(ctx):
    calls = judged_loss_calls(ctx, INDEX_LIST_LOSSES)
    if len(calls) < MARGIN_MIN_CALLS or not all(_zero_one_rows(c) for c in calls):
        return None
    loss, classes = calls[0].loss, calls[0].output_shape[1]
    return Finding(
        code="MULTI_HOT_TARGETS_READ_AS_INDICES", severity="error", where=loss,
        step=int(calls[0].step),
        message=(f"{loss} reads each target row as a list of class ids ended by -1, but every "
                 f"target it got ({len(calls)} recorded calls, {classes} classes) holds only "
                 "0s and 1s and no -1: a multi-hot row. Read as ids, every row names class 0 "
                 "and class 1 as the positives of every sample, whatever the sample's labels "
                 "are, so the model learns to rank those two labels first for every input."),
        evidence={"loss": loss, "classes": int(classes), "calls": len(calls),
                  "target_min": 0.0, "target_max": 1.0,
                  "steps": [int(c.step) for c in calls[:4]]},
        fix=("Give the loss the positive class ids padded with -1 (a row [3, 7, -1, ..., -1] "
             "for labels 3 and 7), e.g. ids = torch.full_like(y, -1); ids[i, :k] = "
             "y[i].nonzero().squeeze(1); or keep the multi-hot rows and train with "
             "BCEWithLogitsLoss (or MultiLabelSoftMarginLoss), which take them as they are."))
