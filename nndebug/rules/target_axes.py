"""HEATMAP_TARGET_AXES_SWAPPED: target maps drawn with their x and y exchanged
(``run.observed.target_offset_rows``, ``monitor/target_offsets.py``).

A keypoint heatmap (or a density or depth map) is drawn on a coordinate grid; unpack
``torch.meshgrid``'s default "ij" grids as (x, y) and every peak lands at (row = x, column =
y), the point's mirror image about the diagonal. The loss falls and settles - a fully
convolutional network lights up what it can reach of the mirrored positions - and the
decoded points are wherever the transposed targets put them. Public report (real-bug batch
115): "xx,yy should be swapped in meshgrid", https://github.com/tlpss/keypoint-detection/issues/7
(held-out PCK 0.06 against 1.00 fixed).

What is read: the input's edges against the target map's own edges, as given, shifted and
with its two axes swapped. Named when enough samples fit their target somewhere
(``AXES_MIN_FITTED``) and at least ``AXES_SWAPPED_SHARE`` of them fit clearly better
transposed. Masks are left to LABELS_MISALIGNED's placements (``rules/label_drift.py``),
which include the transpose; a target drawn right fits best as given (the planted twin: 0
of 64 samples transposed).
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

AXES_MIN_FITTED = 16        # [design] samples whose input edges fit their target somewhere
AXES_SWAPPED_SHARE = 0.5    # [design] share of those fitting clearly better transposed: a
                            # swapped grid moves every sample, and only samples symmetric
                            # about the diagonal tie (batch 115's figures: 64 of 64)


@rule(produces="HEATMAP_TARGET_AXES_SWAPPED",
      explains={"LOSS_PLATEAU", "LABELS_MISALIGNED", "OVERFITTING"})
def heatmap_target_axes_swapped(ctx):
    rows = observed_list(ctx, "target_offset_rows")
    if not rows:
        return None
    step, read, fitted, transposed = rows[0][0], rows[0][1], rows[0][2], rows[0][7]
    if fitted < AXES_MIN_FITTED or transposed < AXES_SWAPPED_SHARE * fitted:
        return None
    return Finding(
        code="HEATMAP_TARGET_AXES_SWAPPED", severity="warning", where="targets", step=step,
        message=f"In {transposed} of {fitted} kept training samples whose input edges follow "
                "their target map, the map fits the input clearly better with its two "
                "spatial axes swapped (transposed) than as given: the targets were drawn "
                "with x and y exchanged (a meshgrid unpacked in the other order, a point "
                "written as (x, y) where (row, column) was read). The model is taught peaks "
                "at the mirror image of where things are.",
        evidence={"samples_read": read, "samples_fitted": fitted,
                  "samples_transposed": transposed, "threshold_share": AXES_SWAPPED_SHARE},
        fix="Draw each map on grids named by their axis: rows, columns = torch.meshgrid("
            "torch.arange(H), torch.arange(W), indexing=\"ij\"), then exp(-((columns - x) ** 2 "
            "+ (rows - y) ** 2) / (2 * sigma ** 2)); check one target by plotting it over its "
            "image.")
