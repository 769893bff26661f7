"""TARGETS_AUGMENTED_WITH_INPUTS: the masks a segmentation model is trained on went through
the images' colour jitter (``run.observed.augmented_target_rows``,
``monitor/augmented_targets.py``).

A mask is a label: a geometric transform must move it with the image, a photometric one
must leave it alone. Jittered, each sample's mask stays two-valued but its values are the
draw's brightness and contrast (0.63 and 0.05, 1.0 and 0.11, ...), and the network learns
probabilities pulled towards the middle that move with the image's exposure. Public report:
"dataset transform?", https://github.com/akirasosa/mobile-semantic-segmentation/issues/42
("why apply the same color jitter transform to the mask?"; the maintainer: "Sorry, it's a
bug").

The finding needs, in every batch read: most samples' targets two- or three-valued (a mask),
most of those not exactly {0, 1}, many different upper values across the samples, and the
upper value following the image's mean intensity under it. Binary masks, smoothed masks
(the same two values in every sample), heatmaps and soft mattes (many values per sample),
and masks weighted per sample by something other than the image's intensity stay silent.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

AUGMENTED_MIN_BATCHES = 2      # [design] training batches read before a verdict
MASK_SHARE = 0.75              # [design] samples whose target has 2-3 distinct values
NOT_BINARY_SHARE = 0.25        # [design] of those, at least this share not exactly {0, 1}:
                               # a brightness factor drawn around 1 is clamped back to
                               # {0, 1} in about half the draws (factors above 1)
DISTINCT_UPPER_SHARE = 0.25    # [design] distinct upper values per mask sample: one value per
                               # draw, not a fixed smoothing level (planted: 43-46 of 64)
INTENSITY_CORRELATION = 0.7    # [measured] correlation of a mask's upper value with its
                               # image's mean under it: planted jitter 0.92-0.94; a per-
                               # sample weight unrelated to the image has ~0


def _augmented(row):
    step, samples, masks, binary, uppers, correlation = row
    return (masks >= MASK_SHARE * samples and masks - binary >= NOT_BINARY_SHARE * masks
            and uppers >= DISTINCT_UPPER_SHARE * masks and correlation >= INTENSITY_CORRELATION)


@rule(produces="TARGETS_AUGMENTED_WITH_INPUTS",
      explains={"LOSS_PLATEAU", "LOSS_OSCILLATING"})
def targets_augmented_with_inputs(ctx):
    rows = observed_list(ctx, "augmented_target_rows")
    if len(rows) < AUGMENTED_MIN_BATCHES or not all(_augmented(row) for row in rows):
        return None
    masks = sum(row[2] for row in rows)
    binary = sum(row[3] for row in rows)
    return Finding(
        code="TARGETS_AUGMENTED_WITH_INPUTS", severity="warning", where="targets",
        step=rows[0][0],
        message=f"{masks - binary} of {masks} training masks read are two-valued but not 0 "
                "and 1, their upper value changes from sample to sample "
                f"({min(r[4] for r in rows)}+ distinct values in a batch) and follows the "
                "image's own intensity under it (correlation "
                f"{min(r[5] for r in rows):.2f}+): the images' colour/intensity augmentation "
                "runs on the masks too, and the model learns the draws' soft values.",
        evidence={"batches": len(rows), "masks": masks, "binary_masks": binary,
                  "distinct_upper_values": [r[4] for r in rows],
                  "correlations": [r[5] for r in rows], "steps": [r[0] for r in rows]},
        fix="Apply photometric transforms (ColorJitter, brightness/contrast, normalisation) "
            "to the image only; apply geometric ones (flip, crop, rotate) to both with the "
            "same parameters, nearest-neighbour for the mask.")
