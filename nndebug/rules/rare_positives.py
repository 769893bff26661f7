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
and the targets' range on each recorded step, ``monitor/loss_capture.py``). Only one-column
outputs (a binary classifier, not a multi-label head whose rare labels may rightly stay
negative in a batch), and only a loss known to average over the batch (a loss module, or a
call whose ``reduction`` was read): a summed term divided by the number of positives (an
SSD-style detector's objectness) already weighs the positives its own way.
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


def _one_column(shape):
    shape = tuple(shape or ())
    return len(shape) == 1 or (len(shape) == 2 and shape[1] == 1)


def _binary_targets(call):
    return abs(call.target_min) <= ZERO_ONE_TOLERANCE and abs(call.target_max - 1.0) <= ZERO_ONE_TOLERANCE


@rule(produces="RARE_POSITIVES_NEVER_PREDICTED", explains={"LOSS_PLATEAU"})
def rare_positives_never_predicted(ctx):
    calls = [c for c in observed_list(ctx, "loss_calls") if c.loss in THRESHOLDS]
    late = calls[-LATE_CALLS:]
    if len(late) < LATE_CALLS or late[-1].step < MIN_LAST_STEP:
        return None
    if len({c.loss for c in late}) != 1 or any(c.reduction != "mean" for c in late):
        return None
    threshold = THRESHOLDS[late[0].loss]
    if not all(_one_column(c.output_shape) and _binary_targets(c)
               and c.output_max < threshold for c in late):
        return None
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
