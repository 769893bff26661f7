"""The loss handed to ``step()`` is the classification loss divided by the batch size once
more: the criterion already averaged over the batch (reduction='mean') and the training
code divides by the batch size again, so every gradient - and, for SGD, the effective
learning rate - is batch-size times too small.

How it is seen without any new measurement: on the first recorded steps the monitor keeps
the model's whole output (``record.output``, when the batch fits in the copied rows) and
the loss call that read it (``run.observed.loss_calls``). Whatever the targets, class
weights, ignored rows or label smoothing, a cross-entropy averaged over these rows lies
between the smallest and the largest of ``logsumexp(row) - max(row)`` and
``logsumexp(row) - min(row)`` (each row's loss for its best and worst possible target). A
stepped loss far below that lower bound is not the criterion's mean; when it times the
batch size falls inside the bounds, it is that mean divided by the batch size.

Only the exact factor counts: a loss divided by the number of accumulated micro-batches
(healthy) matches it only when that number equals the batch size, and such a run learns,
so the finding is a warning only when learning is poor (``curve.learning_poor``).

Public report: "Batch average over Loss"
(https://github.com/jfzhang95/pytorch-deeplab-xception/issues/55).
"""
import math

import numpy as np

from ..findings import Finding
from .context import MIN_RECORDS, judged_loss_calls
from .curve import learning_poor
from .graph import rule

# losses whose mean the bounds hold for: class scores read through log-softmax, or
# log-probabilities read as they are (torch's class and functional names; minigrad alike)
SCORE_LOSSES = {"CrossEntropyLoss", "cross_entropy"}
LOG_PROBABILITY_LOSSES = {"NLLLoss", "nll_loss"}
CLEARLY_BELOW = 4.0           # [design] the stepped loss is under a quarter of the lowest
                              # mean the output allows: not rounding, not a small weight
FACTOR_TOLERANCE = 0.25       # [design] stepped loss x batch size within 25% of the bounds
RANGE_TOLERANCE = 1e-5        # [design] float32 values copied twice agree to ~1e-7 relative
MIN_DIVIDING_BATCH = 4        # [design] a factor of 2 or 3 could be anything (a loss weight)


def row_loss_bounds(output, loss):
    """(lowest, highest) mean loss this output allows, over any targets: the smallest
    best-target row loss and the largest worst-target row loss."""
    scores = np.asarray(output, dtype=float)
    if loss in SCORE_LOSSES:
        top = scores.max(axis=1, keepdims=True)
        log_probs = scores - (top + np.log(np.exp(scores - top).sum(axis=1, keepdims=True)))
    else:
        log_probs = scores
    return float((-log_probs.max(axis=1)).min()), float((-log_probs.min(axis=1)).max())


def same_range(low, high, call):
    """Whether the recorded output's minimum ``low`` and maximum ``high`` are the ones the
    loss call saw: it is the tensor the loss read (not the model's output transformed on the
    way, e.g. by a log-softmax outside the model). Never true for a NaN or an infinity."""
    def close(a, b):          # np.isclose's test, on two Python floats (NaN is never close)
        return abs(a - b) <= RANGE_TOLERANCE * (1 + abs(b))
    return close(low, call.output_min) and close(high, call.output_max)


def could_be_divided(stepped, low, high, classes, loss):
    """False when ``stepped`` is surely not under a quarter of ``row_loss_bounds``' lowest
    mean, without its exp and log over every row (most steps of a healthy run stop here).
    ``low``, ``high``: the output's minimum and maximum; ``classes``: its columns.

    A row's best-target cross-entropy is logsumexp(row) - max(row) <= ln(C) for C classes,
    so the lowest mean is at most ln(C); the margin covers float rounding of logits as large
    as the output's (relative error ~1e-16, far below 1e-9). For NLL on log-probabilities
    the lowest mean is exactly -max(output)."""
    if loss in SCORE_LOSSES:
        upper = math.log(classes) + 1e-9 * (1 + max(abs(low), abs(high)))
    else:
        upper = -high
    return stepped * CLEARLY_BELOW < upper


def below_first_row(stepped, output, loss):
    """False when ``stepped`` is surely not under a quarter of ``row_loss_bounds``' lowest
    mean, read from the first row alone: the lowest mean is the smallest best-target row
    loss, so it is at most the first row's. A trained classifier's confident first row
    settles most healthy steps here, where ``could_be_divided``'s ln(C) does not (a loss of
    0.3 on ten classes is under ln(10) / 4), at the price of one row instead of all."""
    lowest_at_most, _ = row_loss_bounds(np.asarray(output)[:1], loss)
    return stepped * CLEARLY_BELOW < lowest_at_most + 1e-9 * (1 + abs(lowest_at_most))


def divided_steps(ctx):
    """[(step, stepped loss, lowest, highest, batch)] of the recorded steps whose stepped
    loss is the criterion's mean divided by the batch size; and how many steps could be
    checked."""
    calls = judged_loss_calls(ctx, SCORE_LOSSES | LOG_PROBABILITY_LOSSES)
    by_step = {c.step: c for c in calls if getattr(c, "reduction", "mean") == "mean"}
    matches, checked = [], 0
    for record in ctx.records:
        call = by_step.get(record.step)
        output = record.output
        stepped = ctx.loss_by_step.get(record.step)
        if call is None or output is None or np.ndim(output) != 2 or stepped is None or \
                not np.isfinite(stepped) or np.shape(output)[0] < MIN_DIVIDING_BATCH or \
                tuple(np.shape(output)) != tuple(call.output_shape):
            continue
        low, high = float(np.min(output)), float(np.max(output))
        if not same_range(low, high, call):
            continue        # only what the loss read, whole and finite (a NaN or an
                            # infinity is never in range), bounds its mean
        batch, classes = np.shape(output)
        checked += 1
        if not could_be_divided(stepped, low, high, classes, call.loss) or \
                not below_first_row(stepped, output, call.loss):
            continue        # the bounds below cannot match: skip computing them
        lowest, highest = row_loss_bounds(output, call.loss)
        scaled = stepped * batch
        if 0 <= stepped < lowest / CLEARLY_BELOW and \
                lowest * (1 - FACTOR_TOLERANCE) <= scaled <= highest * (1 + FACTOR_TOLERANCE):
            matches.append((record.step, stepped, lowest, highest, batch))
    return matches, checked


@rule(produces="LOSS_DIVIDED_BY_BATCH_SIZE", explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def loss_divided_by_batch_size(ctx):
    matches, checked = divided_steps(ctx)
    if len(matches) < MIN_RECORDS or len(matches) * 2 <= checked:
        return None
    step, stepped, lowest, highest, batch = matches[0]
    poor = learning_poor(ctx)
    return Finding(
        code="LOSS_DIVIDED_BY_BATCH_SIZE", severity="warning" if poor else "info",
        step=step,
        message=f"The loss passed to step() ({stepped:.3g} at step {step}) is about 1/{batch} of "
                f"what the criterion returns for this batch (its mean over these {batch} rows "
                f"lies between {lowest:.3g} and {highest:.3g} whatever the targets): the loss "
                "averaged over the batch was divided by the batch size again, so the gradients "
                f"are {batch} times too small" +
                (" and the loss barely moves." if poor else "."),
        evidence={"steps": [m[0] for m in matches], "stepped_losses": [m[1] for m in matches],
                  "criterion_mean_bounds": [(m[2], m[3]) for m in matches],
                  "batch_size": batch, "steps_checked": checked,
                  "learning_poor": bool(poor)},
        fix="Divide once: the criterion's reduction='mean' already averages over the batch "
            "(drop the extra `loss / batch_size`), or use reduction='sum' and divide yourself.")
