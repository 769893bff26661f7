"""A class-index classifier that has settled on never predicting its rare classes.

RARE_CLASS_NEVER_PREDICTED: late in the run, a class that makes up a small share of the
targets is not the highest score of any row (or pixel) in the last recorded batches, while
the targets' shares say each of those batches should hold it several times.

The multi-class twin of RARE_POSITIVES_NEVER_PREDICTED (a one-column binary output): an
unweighted cross-entropy over rare classes is lowest, early on and for a long while, when
the model answers the frequent class everywhere. A segmenter trained mostly on images with
an empty mask labels every pixel background. Public report: "Binary model always predict
same label", https://github.com/open-mmlab/mmsegmentation/issues/2579 ("the model may
decide that always predicting 0 is a good strategy"; the fix: leave out the images without
a defect). A model that learns its rare classes picks them somewhere in a batch that holds
them; so only the last recorded calls are read, and only when none of them picks the class.
A model that predicts one class for everything because it is broken (dead units, a
diverged rate) leaves frequent classes unpicked too, and one at chance on balanced classes
(shuffled labels) leaves some unpicked that are as frequent as those it picks: the classes
never picked must be rare together and each rarer than every class picked, so those
readings stay with the rules for their causes.

Read from the recorded loss calls (``run.observed.loss_calls``): the class ids each late
call's scores picked (``LossCall.predicted_classes``, a vector of C flags in the step's one
transfer, ``monitor/loss_capture.py``) and the targets' class counts sampled on the first
calls (``LossCall.target_counts``). Only a loss without class weights (weights already
weigh the rare classes their own way) that averages over the batch, and only a model that
looks up no token ids: a language model's or tagger's rare tokens are rightly never the
top score of an uncertain next-token guess.
"""
import numpy as np

from ..findings import Finding
from .context import CLASS_INDEX_LOSSES, LOOKUP_TABLES, observed_list
from .graph import rule

RARE_CLASS_LATE_CALLS = 3     # [design] the last recorded loss calls that must all agree (as
                              # RARE_POSITIVES_NEVER_PREDICTED reads them)
RARE_CLASS_MIN_LAST_STEP = 50   # [design] the first of them at least this far into the run: a
                              # segmenter trained on defect images only still picked no
                              # defect pixel at steps 32 and 64 (seeds shifted by 1000) and
                              # found them by step 200
RARE_CLASS_SHARE = 0.25       # [design] the classes never picked hold at most this share of
                              # the targets together: rare, as the binary rule's positives
                              # (16% in its report); a broken model leaves 50-90% unpicked
RARER_THAN_PICKED = 0.25      # [design] each class never picked is at most a quarter as
                              # frequent as the rarest class the model does pick: a model at
                              # chance on balanced classes (shuffled labels) leaves some
                              # unpicked as frequent as those it picks, and a broken 3-class
                              # tagger left its 16% class unpicked beside two of 43%
MIN_EXPECTED_TARGETS = 10.0   # [design] the class should appear about this many times over
                              # the late batches at its sampled share: missing it from every
                              # prediction is then no accident of a batch without it


def _target_shares(calls, columns, ignored):
    """Each class id's share of the sampled targets (ids below ``columns`` other than the
    ignored one), from the calls whose targets were counted; None when none were."""
    counts = np.zeros(columns)
    for call in calls:
        if call.target_counts:
            n = min(columns, len(call.target_counts))
            counts[:n] += call.target_counts[:n]
    if ignored is not None and 0 <= ignored < columns:
        counts[ignored] = 0
    total = counts.sum()
    return None if total == 0 else counts / total


def _positions(call):
    """Rows times positions one call's scores hold (all but the class axis)."""
    shape = tuple(call.output_shape)
    return int(np.prod(shape)) // shape[1]


@rule(produces="RARE_CLASS_NEVER_PREDICTED", explains={"LOSS_PLATEAU"})
def rare_class_never_predicted(ctx):
    if any(layer.type in LOOKUP_TABLES for layer in ctx.run.layers):
        return None      # token ids in: next tokens or tags, whose rare ones are rightly
                         # never the top score of an uncertain prediction
    calls = [c for c in observed_list(ctx, "loss_calls") if c.loss in CLASS_INDEX_LOSSES
             and len(tuple(c.output_shape)) >= 2]
    late = [c for c in calls if c.predicted_classes is not None][-RARE_CLASS_LATE_CALLS:]
    if len(late) < RARE_CLASS_LATE_CALLS or late[0].step < RARE_CLASS_MIN_LAST_STEP:
        return None
    columns = tuple(late[0].output_shape)[1]
    if len({(c.loss, tuple(c.output_shape)[1]) for c in late}) != 1 or \
            any(c.reduction != "mean" or c.class_weights for c in late):
        return None
    shares = _target_shares(calls, columns, late[0].ignore_index)
    if shares is None:
        return None
    picked = set().union(*(set(c.predicted_classes) for c in late))
    if not picked:
        return None
    expected = shares * sum(_positions(c) for c in late)
    never = [k for k in range(columns) if shares[k] > 0 and k not in picked]
    rare_share = float(shares[never].sum()) if never else 0.0
    rarest_picked = min((shares[k] for k in picked if k < columns), default=0.0)
    missed = [k for k in never if expected[k] >= MIN_EXPECTED_TARGETS
              and shares[k] <= RARER_THAN_PICKED * rarest_picked]
    if not missed or rare_share > RARE_CLASS_SHARE:
        return None
    loss = late[0].loss
    named = ", ".join(str(k) for k in missed[:8]) + (" ..." if len(missed) > 8 else "")
    return Finding(
        code="RARE_CLASS_NEVER_PREDICTED", severity="warning", where=loss,
        step=int(late[0].step),
        message=(f"From step {late[0].step} on, no row or position of the recorded batches "
                 f"is given class {named} by the model (its highest score), though the "
                 f"targets hold {'it' if len(missed) == 1 else 'them'} "
                 f"{rare_share:.2%} of the time, about {expected[missed].sum():.0f} targets "
                 f"over those batches; the model picks only "
                 f"{', '.join(str(k) for k in sorted(picked)[:8])}. With rare classes an "
                 f"unweighted {loss} rewards answering the frequent class everywhere."),
        evidence={"loss": loss, "steps": [int(c.step) for c in late],
                  "never_predicted": missed, "target_share": rare_share,
                  "predicted": sorted(picked), "expected_targets": float(expected[missed].sum())},
        fix=("weigh the rare classes: CrossEntropyLoss(weight=1 / class frequency), or sample "
             "more of the rows (images) that hold them (a WeightedRandomSampler; for masks, "
             "fewer images with an empty mask), or a Dice / focal loss for segmentation; "
             "judge by per-class recall or IoU, not accuracy"))
