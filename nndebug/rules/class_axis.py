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

The same code names log-probabilities normalised over a spatial axis instead of the classes
(real-bug batch 244): ``F.softmax(scores, dim=-1)`` on channels-first (N, C, H, W) scores -
the default axis of a channels-last framework - then the log into NLLLoss. Every value is a
log-probability (<= 0) and the loss falls, but exp of the input misses 1 along dim 1: each
class map became a distribution over the positions of a row, and the classes of one pixel no
longer compete. Read from ``LossCall.class_mass_error`` / ``batch_mass_error``
(``monitor/log_prob_axes.py``, measured on the first NLL calls); a softmax over the batch
axis is left to LOG_PROBS_NORMALISED_OVER_BATCH. Public report: "Using
Categorical_crossentropy, Loss Unable to Converge"
(https://github.com/ellisdg/3DUnetCNN/issues/94).
"""
import math

from ..findings import Finding
from .context import (CLASS_INDEX_LOSSES, LOG_PROBS_MISS_ONE, LOG_PROBS_SUM_TO_ONE,
                      LOG_SMOOTHING_SLACK, MAJORITY, MIN_MEASURED_NLL_CALLS, MIN_RECORDS,
                      NLL_LOSSES, fmt, judged_loss_calls)
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


def off_class_axis(call):
    """Whether this NLL call's input - log-probabilities (every value <= 0, up to smoothing)
    of 3 or more dimensions - misses 1 along the class axis (dim 1) while not summing to 1
    over the batch (that case is LOG_PROBS_NORMALISED_OVER_BATCH's). None when not
    measured."""
    if call.class_mass_error is None or len(call.output_shape) < 3 or \
            not math.isfinite(call.output_max):
        return None
    if call.batch_mass_error is not None and call.batch_mass_error < LOG_PROBS_SUM_TO_ONE:
        return False
    return call.class_mass_error > LOG_PROBS_MISS_ONE and \
        call.output_max <= LOG_SMOOTHING_SLACK


def _normalised_off_the_class_axis(ctx):
    calls = [c for c in judged_loss_calls(ctx, NLL_LOSSES) if off_class_axis(c) is not None]
    if len(calls) < MIN_MEASURED_NLL_CALLS or not all(off_class_axis(c) for c in calls):
        return None
    first = calls[0]
    shape = tuple(first.output_shape)
    error = min(c.class_mass_error for c in calls)
    return Finding(
        code="CLASS_AXIS_SCRAMBLED", severity="warning", where=first.loss, step=first.step,
        message=f"{first.loss} got log-probabilities of shape {shape} (every value <= 0) whose "
                f"exp misses 1 along the class axis (dim 1, {shape[1]} classes) by "
                f"{fmt(error)} or more over {len(calls)} measured calls: they were normalised "
                "over another axis - a softmax over dim=-1 of channels-first scores, the "
                "default axis of a channels-last framework - so each class map became a "
                "distribution over positions and the classes of one position no longer "
                "compete.",
        evidence={"loss": first.loss, "input_shape": list(shape), "calls": len(calls),
                  "class_mass_error": error},
        fix="Normalise over the class axis: F.log_softmax(scores, dim=1) for (N, C, H, W) "
            "scores, or give the raw scores to F.cross_entropy, which does it itself.")


@rule(produces="CLASS_AXIS_SCRAMBLED", explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def class_axis_scrambled(ctx):
    calls = judged_loss_calls(ctx, CLASS_INDEX_LOSSES)
    flagged = [c for c in calls if scrambled(c)]
    if len(flagged) < MIN_RECORDS or len(flagged) < MAJORITY * len(calls):
        return _normalised_off_the_class_axis(ctx)
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
