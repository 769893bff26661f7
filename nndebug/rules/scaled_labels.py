"""BINARY_TARGETS_SCALED_DOWN: the 0/1 labels of a binary (multi-label) loss arrive as 0 and
one small constant - scaled like the inputs - so the model learns that every label is
almost never present.

A data layer that multiplies whatever it reads by the pixel scale (Caffe's
``transform_param { scale: 0.00390625 }`` applied to the label blob too), a ``/ 255``
written over the whole sample, labels stored as an image: the targets become 0 and
1/256. They stay inside [0, 1], so nothing looks out of range; the loss falls to a small
value while the model predicts about 0.004 for every label and, thresholded at 0.5, never
a positive. Public report: "Multi-label classification ... all predictions are zero",
https://github.com/sukritshankar/Caffe-LMDBCreation-MultiLabel/issues/8 (real-bug batch
185: micro-F1 0.00 against 0.76).

Read from ``run.observed.loss_calls`` (``LossCall.label_level``, monitor/loss_capture.py):
the first sampled rows of a 2-D float target of a binary loss - or a strided sample of an
N-D one, a mask of per-pixel labels (real-bug batch 280: uint8 masks divided by 255 by
ToTensor, "Custom dataset labels change if numpy dtype is uint8",
https://github.com/pytorch/pytorch/issues/53959) - hold exactly two values, 0 and one
other at most LEVEL_MAX, on every call read. Soft labels (smoothing: eps and
1 - eps; a teacher's probabilities; 0.5 for an uncertain label beside 0 and 1) hold other
values and are never read as such.
"""
from ..findings import Finding
from .context import judged_loss_calls
from .graph import rule

BINARY_TARGET_LOSSES = {"BCELoss", "BCEWithLogitsLoss", "binary_cross_entropy",
                        "binary_cross_entropy_with_logits", "MultiLabelSoftMarginLoss",
                        "multilabel_soft_margin_loss"}
LEVEL_MAX = 0.5         # [design] a positive below one half is never predicted at a 0.5
                        # threshold; 1/256 and 1/255 are the pixel scales met
MIN_CALLS_READ = 2      # [design] sampled calls that show the two levels (the first calls'
                        # rows are read)


@rule(produces="BINARY_TARGETS_SCALED_DOWN",
      explains={"LOSS_PLATEAU", "RARE_POSITIVES_NEVER_PREDICTED"})
def binary_targets_scaled_down(ctx):
    calls = [c for c in judged_loss_calls(ctx, BINARY_TARGET_LOSSES)
             if c.label_rows is not None]                 # the rows were read
    levels = [c.label_level for c in calls]
    if len(calls) < MIN_CALLS_READ or any(level is None or not 0 < level <= LEVEL_MAX
                                          for level in levels):
        return None
    level = levels[0]
    return Finding(
        code="BINARY_TARGETS_SCALED_DOWN", severity="warning", where=calls[0].loss,
        step=calls[0].step,
        message=f"{calls[0].loss}'s targets hold exactly two values, 0 and {level:.4g}, on "
                f"all {len(calls)} calls read: the 0/1 labels were scaled like the inputs "
                f"(1/{round(1 / level)} looks like a pixel scale), so the model learns that "
                f"each label is present with probability about {level:.2g} and, at a 0.5 "
                "threshold, never predicts one.",
        evidence={"label_level": level, "calls_read": len(calls), "threshold": LEVEL_MAX},
        fix="Keep the labels out of the input scaling: multiply only the images by the pixel "
            "scale (or store labels as 0/1 in their own blob, untransformed).")
