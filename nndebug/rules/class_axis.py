"""Class scores flattened with the class axis in the wrong place.

A segmentation net (or a 1-D conv tagger) outputs class scores as (N, C, H, W) (or (N, C, T)).
A class-index loss wants one row of C scores per pixel, so the scores must be moved to
(N, H, W, C) before they are flattened: ``scores.permute(0, 2, 3, 1).reshape(-1, C)``.
Written as ``scores.view(-1, C)`` (or ``reshape``), the memory order is kept: each row then
holds C neighbouring pixels of ONE class map, and the softmax compares numbers that have
nothing to do with each other. Shapes cannot tell: both give (N*H*W, C) against (N*H*W,)
targets, and the loss still falls, to a worse level.

What tells them apart is how the loss's input was made (``LossCall.viewed_from``): the
wrong flattening is a plain view of the scores (torch keeps the tensor it views, its
``_base``), whose class axis C sits in dimension 1 and not last; the right one is a copy (a
permuted tensor cannot be viewed flat), or a view of a tensor whose last axis holds the
classes. torch only: minigrad has no views to look at.

Public report: "pixl-wise distillation loss"
(https://github.com/irfanICMLL/structure_knowledge_distillation/issues/11).
"""
import math

from ..findings import Finding
from .context import CLASS_INDEX_LOSSES, MAJORITY, MIN_RECORDS, judged_loss_calls
from .graph import rule


def scrambled(call):
    """Whether this loss call's (M, C) input is a plain view of a tensor of 3 or more
    dimensions whose classes lie along dimension 1 and not along the last one."""
    base, shape = call.viewed_from, call.output_shape
    if base is None or len(shape) != 2 or len(base) < 3:
        return False
    classes = shape[1]
    return base[1] == classes and base[-1] != classes and \
        math.prod(base) == math.prod(shape)


@rule(produces="CLASS_AXIS_SCRAMBLED", explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def class_axis_scrambled(ctx):
    calls = judged_loss_calls(ctx, CLASS_INDEX_LOSSES)
    flagged = [c for c in calls if scrambled(c)]
    if len(flagged) < MIN_RECORDS or len(flagged) < MAJORITY * len(calls):
        return None
    first = flagged[0]
    base, classes = first.viewed_from, first.output_shape[1]
    return Finding(
        code="CLASS_AXIS_SCRAMBLED", severity="warning", where=first.loss, step=first.step,
        message=f"The {classes} class scores given to {first.loss} are {tuple(first.output_shape)}, "
                f"a plain view of a {tuple(base)} tensor whose classes lie along dimension 1: "
                f"flattening it without moving that axis last puts {classes} neighbouring "
                "positions of ONE class map in each row, not the class scores of one position, "
                f"so the loss compares the wrong numbers (on {len(flagged)} of {len(calls)} "
                "recorded calls).",
        evidence={"input_shape": list(first.output_shape), "viewed_from": list(base),
                  "classes": classes, "calls_flagged": len(flagged), "calls": len(calls),
                  "steps": [c.step for c in flagged[:20]]},
        fix="Move the class axis last before flattening: "
            "scores.permute(0, 2, 3, 1).reshape(-1, C) for (N, C, H, W) scores "
            "(scores.transpose(1, 2).reshape(-1, C) for (N, C, T)), or give the loss the "
            "(N, C, H, W) scores and (N, H, W) targets as they are.")
