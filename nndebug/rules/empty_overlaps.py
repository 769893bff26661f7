"""LOSS_CONSTANT_ON_EMPTY_TARGETS: the whole loss is an overlap ratio (a soft Dice, an IoU)
written without a smoothing term in its numerator, and a share of the targets are empty
(real-bug batch 75: open-mmlab/mmocr#408, "loss always 1 if empty target").

What is read: ``observed.empty_overlap_targets`` (``monitor/empty_overlaps.py``: the loss is
a reduction of ``1 - numerator / denominator``, the numerator an unsmoothed product of the
prediction with a constant mask, and the count of the mask's all-zero rows on the first
recorded step it was found). On an empty row the numerator is 0 whatever the model
predicts: that row's term is a constant, its gradient exactly 0. Those images teach the
model nothing, not even to leave them blank. Named from the structure and the data alone,
when at least ``EMPTY_TARGET_SHARE`` of the rows were empty: the loss falls as it should
on the other rows, so no curve symptom is waited for.

Healthy look-alikes left silent: the same ratio smoothed in its numerator too
(``(2 * overlap + eps) / (areas + eps)``: an empty row then has a gradient), a Dice added to
a BCE or a cross-entropy (the other term trains the empty rows; the root is a sum of two
terms), a Dice on a set without empty masks, a few empty masks (under the share).
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

EMPTY_TARGET_SHARE = 0.1   # [design] empty target rows in a batch before their lost gradient
                           # is named: one image in ten or more is a set built with negatives
                           # (the case: one in two); a stray empty crop is not


@rule(produces="LOSS_CONSTANT_ON_EMPTY_TARGETS",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def loss_constant_on_empty_targets(ctx):
    rows = [row for row in observed_list(ctx, "empty_overlap_targets")
            if row[1] > 0 and row[2] / row[1] >= EMPTY_TARGET_SHARE]
    if not rows:
        return None
    step, total, empty = rows[0]
    return Finding(
        code="LOSS_CONSTANT_ON_EMPTY_TARGETS", severity="warning", where="loss", step=step,
        message=f"The loss is an overlap ratio (1 - overlap / area, a soft Dice or IoU) with "
                f"no smoothing term in its numerator, and {empty} of the {total} targets in "
                f"the batch of step {step} are empty: on those rows the numerator is 0 "
                "whatever the model predicts, the term is a constant and its gradient "
                "exactly 0. Images with nothing to find teach the model nothing - not even "
                "to leave them blank.",
        evidence={"rows": total, "empty_rows": empty, "steps": sorted({r[0] for r in rows})},
        fix="Smooth the numerator too: 1 - (2 * overlap + eps) / (areas + eps) (an empty "
            "prediction of an empty mask then scores 1), or add a per-pixel BCE term that "
            "trains the empty images.")
