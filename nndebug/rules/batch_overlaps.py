"""DICE_OVER_WHOLE_BATCH: a soft Dice (or IoU, Tversky) loss whose overlap and area sums
run over the batch axis too, so the whole batch is scored as one image
(``run.observed.whole_batch_overlaps``, ``monitor/whole_batch_overlaps.py``).

``2 * (p * m).sum() / (p.sum() + m.sum())`` over a (B, C, H, W) batch lets the large
objects rule the sums: an image whose object covers a few pixels barely moves them, and
the segmenter learns to leave small objects unfound while the loss looks fine. Summing
over each image's pixels (``dim=(1, 2, 3)``, or ``(2, 3)`` per class) and averaging the
per-image losses counts every image the same. Named from the graph alone: a quotient of
two whole-tensor sums over a prediction-times-mask product is no per-sample loss.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule


@rule(produces="DICE_OVER_WHOLE_BATCH")
def dice_over_whole_batch(ctx):
    rows = observed_list(ctx, "whole_batch_overlaps")
    if not rows:
        return None
    step, shape = rows[0]
    shape_text = " x ".join(str(n) for n in shape)
    per_image = tuple(range(1, len(shape)))
    return Finding(
        code="DICE_OVER_WHOLE_BATCH", severity="warning", where="loss", step=step,
        message=f"The loss divides an overlap summed over a whole {shape_text} batch by "
                "areas summed the same way (a soft Dice or IoU over the batch axis too): "
                "the batch is scored as ONE image, so images with small objects barely "
                "count and the model can leave them unfound while the loss looks fine.",
        evidence={"shape": list(shape), "steps": sorted({row[0] for row in rows})},
        fix=f"Sum over each image's own axes only (dim={per_image}, or the spatial axes "
            "for one Dice per class), then average the per-image losses over the batch.")
