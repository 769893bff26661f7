"""LABELS_MISALIGNED's fourth reading (``rules/label_drift.py`` names the code): inputs and
targets cut by two different random crops (``run.observed.target_offset_rows``,
``monitor/target_offsets.py``).

Public report (real-bug batch 360): "Issue in random cropping: differently located crops for
RealA and RealB", https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/1061 - two
transform objects, one per image, each with its own RandomCrop. A deblurring network trained
on such pairs ends below the blurred input itself (held-out PSNR 17.8 dB against 22.3 for
the input, 31.4 with one crop per pair).

Named when enough samples have input edges that fit their target at some small shift
(``OFFSET_MIN_FITTED``), in at least ``OFFSET_MOVED_SHARE`` of them a shift other than 0 fits
clearly better, and those shifts are many (``OFFSET_MIN_DISTINCT``, none holding more than
``OFFSET_COMMON_SHARE`` of the moved samples): one offset per sample, as two independent crops
draw. One shift shared by most samples is left out: a fixed offset (a padding convention, a
half-pixel resize) costs a convolution nothing to learn.
"""
from ..findings import Finding
from .context import observed_list

OFFSET_MIN_FITTED = 16      # [design] samples whose input edges fit their target somewhere
OFFSET_MOVED_SHARE = 0.2    # [design] share of those a shifted target fits clearly better, as
                            # for flipped masks (label_drift.MASK_MOVED_SHARE); the planted
                            # crops 61 of 64 (batch 360), its twin 0
OFFSET_MIN_DISTINCT = 3     # [design] distinct shifts among them: crops drawn apart (the
                            # planted case 34 shifts in 61 samples), not one fixed offset
OFFSET_COMMON_SHARE = 0.5   # [design] the commonest shift's share of the moved samples, at
                            # most: a target rolled by one fixed shift puts 62 of 64 there


def targets_cut_elsewhere(ctx):
    """The fourth reading (module docstring), or None."""
    rows = observed_list(ctx, "target_offset_rows")
    if not rows:
        return None
    step, read, fitted, moved, distinct, common, common_moved, _ = rows[0]
    if fitted < OFFSET_MIN_FITTED or moved < OFFSET_MOVED_SHARE * fitted or \
            distinct < OFFSET_MIN_DISTINCT or common_moved > OFFSET_COMMON_SHARE * moved:
        return None
    rows_shift, columns_shift = common.split(",")
    return Finding(
        code="LABELS_MISALIGNED", severity="warning", where="targets", step=step,
        message=f"In {moved} of {fitted} kept training samples whose input edges follow "
                "their target, the target fits the input clearly better moved by a few "
                f"pixels than as given, by {distinct} different shifts (most often as if cut "
                f"{rows_shift} rows and {columns_shift} columns from its input's crop): the "
                "input and its target were "
                "cropped (or shifted) at different places. The model is taught to move the "
                "image by an amount nothing in the input tells, and learns a blurred average.",
        evidence={"samples_read": read, "samples_fitted": fitted, "samples_moved": moved,
                  "distinct_shifts": distinct, "commonest_shift": common,
                  "threshold_share": OFFSET_MOVED_SHARE},
        fix="Draw each random crop (and any shift or resize) once per pair and apply it to "
            "the input and its target together: one transform call on both (a joint "
            "transform, e.g. transforms.v2 given both images), or the same crop box for "
            "each.")
