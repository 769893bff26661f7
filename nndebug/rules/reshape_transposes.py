"""RESHAPE_USED_AS_TRANSPOSE: a ``view`` / ``reshape`` whose output shape only a
reordering of the input's axes explains (``run.observed.transposing_reshapes``,
``monitor/transposing_reshapes.py``).

A reshape keeps memory order: (B, C, H, W).view(B, H * W, C) does not put the channels
last, it cuts each channel's map into rows of C numbers. The output's shape is that of a
transpose, the numbers are not. Judged on the shapes alone: the output is no plain
regrouping (neighbouring axes merged, or one axis split) of the input, but is one of the
input with its axes reordered. No threshold to tune. The rows come from the forward's and
the loss's graphs, and (real-bug batch 226) from the model's input batch itself: data viewed
before the model carries no gradient, so its view is read from the batch's ``_base`` in the
first training forwards (``transposing_reshapes.input_axis_view``).

Also (real-bug batch 57) a reshape that cuts an image into patch tokens, or lays patch
tokens back out as an image, in one step (``run.observed.patch_grid_reshapes``,
``monitor/patch_grid_reshapes.py``): (C, H, W) <-> (N, C * p * p) with N the patch grid's
count - a reshape cannot gather a p x p block, whose rows lie apart in memory.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule


@rule(produces="RESHAPE_USED_AS_TRANSPOSE")
def reshape_used_as_transpose(ctx):
    rows = observed_list(ctx, "transposing_reshapes")
    patches = observed_list(ctx, "patch_grid_reshapes")
    if patches and (not rows or any((list(p[1]), list(p[2])) == (list(rows[0][1]),
                                                                 list(rows[0][2]))
                                     for p in patches)):
        return _patch_grid_finding(patches)
    if not rows:
        return None
    step, before, after, order = rows[0]
    before_text = "(" + ", ".join(str(n) for n in before) + ")"
    after_text = "(" + ", ".join(str(n) for n in after) + ")"
    full_order = list(order) + [i for i in range(len(before)) if i not in order]
    moved = "(" + ", ".join(str(before[i]) for i in full_order) + ")"
    return Finding(
        code="RESHAPE_USED_AS_TRANSPOSE", severity="warning", where="forward", step=step,
        message=f"A view/reshape turns a {before_text} tensor into {after_text}: that shape "
                f"is the input's axes in another order, {moved}, but a reshape never moves "
                "a number - each new row is a run of consecutive numbers in memory (e.g. "
                "one channel's neighbouring pixels, not one pixel's channels). The layers "
                "after it read scrambled features, and training still goes on.",
        evidence={"input_shape": list(before), "output_shape": list(after),
                  "axis_order": list(full_order),
                  "found": [[list(row[1]), list(row[2])] for row in rows],
                  "steps": sorted({row[0] for row in rows})},
        fix=f"Move the axes first, then reshape: x.permute{tuple(full_order)}.reshape"
            f"{after_text} (e.g. (B, C, H, W) -> x.permute(0, 2, 3, 1).reshape(B, H * W, "
            "C); (B, T, V) logits for a loss -> x.transpose(1, 2), not x.view(B, V, T)).")


def _patch_grid_finding(rows):
    """The finding for a one-step patch cut or paste (``monitor/patch_grid_reshapes.py``)."""
    step, before, after, patch = rows[0]
    before_text = "(" + ", ".join(str(n) for n in before) + ")"
    after_text = "(" + ", ".join(str(n) for n in after) + ")"
    into_tokens = len([n for n in after if n > 1]) <= len([n for n in before if n > 1]) \
        and before[-1] != after[-1]
    what = ("cuts an image batch into patch tokens" if into_tokens else
            "lays per-patch outputs back out as an image")
    return Finding(
        code="RESHAPE_USED_AS_TRANSPOSE", severity="warning", where="forward", step=step,
        message=f"A view/reshape turns a {before_text} tensor into {after_text}: it {what} "
                f"(patches of {patch}x{patch} pixels) in one step. A reshape never moves a "
                "number, and the rows of a square patch lie apart in memory: each 'patch' it "
                "makes is a run of consecutive numbers (strips of one channel's rows), and a "
                "patch's pixels land along the image's rows, not in their block. The model "
                "trains on tokens, or is graded on pixels, that are not where it thinks.",
        evidence={"input_shape": list(before), "output_shape": list(after),
                  "patch": int(patch),
                  "found": [[list(row[1]), list(row[2]), int(row[3])] for row in rows],
                  "steps": sorted({row[0] for row in rows})},
        fix="Split the grid and the patch axes, move them, then merge: images (B, C, H, W) -> "
            f"x.reshape(B, C, H // {patch}, {patch}, W // {patch}, {patch}).permute(0, 2, 4, "
            f"1, 3, 5).reshape(B, -1, C * {patch} * {patch}) (or x.unfold(2, p, p).unfold(3, p, "
            "p).permute(0, 2, 3, 1, 4, 5)); per-patch outputs (B, h * w, p * p, K) -> "
            "x.reshape(B, h, w, p, p, K).permute(0, 1, 3, 2, 4, 5).reshape(B, h * p, w * p, K).")
