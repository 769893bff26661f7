"""RESHAPE_USED_AS_TRANSPOSE: a ``view`` / ``reshape`` whose output shape only a
reordering of the input's axes explains (``run.observed.transposing_reshapes``,
``monitor/transposing_reshapes.py``).

A reshape keeps memory order: (B, C, H, W).view(B, H * W, C) does not put the channels
last, it cuts each channel's map into rows of C numbers. The output's shape is that of a
transpose, the numbers are not. Judged on the shapes alone: the output is no plain
regrouping (neighbouring axes merged, or one axis split) of the input, but is one of the
input with its axes reordered. No threshold to tune.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule


@rule(produces="RESHAPE_USED_AS_TRANSPOSE")
def reshape_used_as_transpose(ctx):
    rows = observed_list(ctx, "transposing_reshapes")
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
