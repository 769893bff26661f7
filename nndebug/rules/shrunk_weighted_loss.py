"""CLASS_WEIGHTS_SHRINK_LOSS: per-row losses multiplied by factors far below 1 (class weights
1 / count) and averaged, so the loss - and every gradient - is a small fraction of the
criterion's.

A weighted cross-entropy is often written by hand: ``cross_entropy(..., reduction='none')``,
times each row's class weight, averaged. With weights 1 / count (a few thousandths) and no
normalisation the classes are balanced against each other as intended, but the whole loss
shrinks by the mean weight; with SGD the effective learning rate shrinks with it, and the
model barely moves in the steps it has (real-bug batch 62: "per-class weights are simply
multiplied with the raw NLL loss, which skews the effective learning rate",
https://github.com/EthanRosenthal/spacecutter/issues/16). ``CrossEntropyLoss(weight=...)``
with its default reduction divides by the weights' sum and does not have the problem.

How it is seen, with what the monitor already keeps: the loss call of each recorded step
(``run.observed.loss_calls``: a cross-entropy or NLL call with ``reduction='none'``, with
the minimum and maximum of what it read), the output itself where the first records keep
it (``record.output``, checked to be that tensor by its minimum and maximum), and the loss
handed to ``step()``. Whatever the targets, each row's loss is at least its best-target
loss, logsumexp(row) - max(row) (for NLL on log-probabilities, -max(row)); averaged over
the rows that is a floor for any mean of the per-row losses, and the call's minimum and
maximum alone give a lower one (``call_floor``). A stepped loss below ``SHRINK_FACTOR`` times less than that
floor means the rows were multiplied by factors averaging below 1 / ``SHRINK_FACTOR``
before the mean. Named when that holds on most checked steps (at least ``MIN_RECORDS``);
a warning when learning is poor, info otherwise (Adam does not care about a constant
factor, and a run that learns is not harmed). Cost: a logsumexp over the kept output rows
of the first recorded steps, at findings().

Healthy look-alikes: weights normalised to a mean of 1, a masked mean divided by the mask's
sum, and ``reduction='mean'`` (whose division by the batch size again is
LOSS_DIVIDED_BY_BATCH_SIZE's) are far from the factor; a per-token loss averaged over a
batch mostly made of padding shrinks too, and is named only if learning is poor.
"""
import numpy as np

from ..findings import Finding
from .context import MIN_RECORDS, judged_loss_calls
from .curve import learning_poor
from .graph import rule

SCORE_LOSSES = {"CrossEntropyLoss", "cross_entropy"}
LOG_PROBABILITY_LOSSES = {"NLLLoss", "nll_loss"}
SHRINK_FACTOR = 20.0          # [design] the stepped loss under a twentieth of the floor: far
                              # beyond rounding, label smoothing or a loss term's weight of a
                              # half; 1 / count weights of ten classes of 18-180 rows gave 36
SHRINK_RANGE_TOLERANCE = 1e-5  # [design] float32 values copied twice agree to ~1e-7 relative
SHRINK_MIN_FLOOR = 0.05       # [design] a floor below this says nothing (a confident model's
                              # best-target loss): such steps are not counted as checked


def best_target_floor(output, loss):
    """The mean over rows of each row's lowest possible loss (its best target)."""
    scores = np.asarray(output, dtype=float)
    if loss in SCORE_LOSSES:
        top = scores.max(axis=1, keepdims=True)
        lse = top[:, 0] + np.log(np.exp(scores - top).sum(axis=1))
        return float((lse - top[:, 0]).mean())
    return float((-scores.max(axis=1)).mean())


def call_floor(call):
    """A floor for the mean per-row loss from the call's own minimum and maximum, without
    the output: every row's best-target cross-entropy is at least
    log(1 + (C - 1) exp(min - max)) (its other C - 1 scores are no lower than the output's
    minimum, its top no higher than the maximum); an NLL row's loss is at least -max."""
    low, high = call.output_min, call.output_max
    if not (np.isfinite(low) and np.isfinite(high)) or len(call.output_shape) < 2:
        return 0.0
    if call.loss in SCORE_LOSSES:
        classes = int(call.output_shape[1])
        return float(np.log1p((classes - 1) * np.exp(low - high)))
    return float(-high) if high <= 0 else 0.0


def _same_range(output, call):
    low, high = float(np.min(output)), float(np.max(output))

    def close(a, b):
        return abs(a - b) <= SHRINK_RANGE_TOLERANCE * (1 + abs(b))
    return close(low, call.output_min) and close(high, call.output_max)


def shrunk_steps(ctx):
    """[(step, stepped loss, floor)] of the recorded steps whose stepped loss is far below
    the per-row floor of a reduction='none' class-index loss; and how many were checked."""
    calls = judged_loss_calls(ctx, SCORE_LOSSES | LOG_PROBABILITY_LOSSES)
    by_step = {c.step: c for c in calls if getattr(c, "reduction", None) == "none"}
    if not by_step:
        return [], 0
    outputs = {r.step: r.output for r in ctx.records}
    matches, checked = [], 0
    for step, call in sorted(by_step.items()):
        stepped = ctx.loss_by_step.get(step)
        if stepped is None or not np.isfinite(stepped):
            continue
        floor = call_floor(call)
        output = outputs.get(step)
        if output is not None and np.ndim(output) == 2 and \
                tuple(np.shape(output)) == tuple(call.output_shape) and \
                np.isfinite(output).all() and _same_range(output, call):
            floor = max(floor, best_target_floor(output, call.loss))
        if floor < SHRINK_MIN_FLOOR:
            continue
        checked += 1
        if 0 <= stepped * SHRINK_FACTOR < floor:
            matches.append((step, float(stepped), floor))
    return matches, checked


@rule(produces="CLASS_WEIGHTS_SHRINK_LOSS",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE", "LR_TOO_LOW"})
def class_weights_shrink_loss(ctx):
    matches, checked = shrunk_steps(ctx)
    if len(matches) < MIN_RECORDS or len(matches) * 2 <= checked:
        return None
    step, stepped, floor = matches[0]
    factor = floor / max(stepped, 1e-300)
    poor = learning_poor(ctx)
    return Finding(
        code="CLASS_WEIGHTS_SHRINK_LOSS", severity="warning" if poor else "info", step=step,
        message=f"The loss passed to step() ({stepped:.3g} at step {step}) is about 1/"
                f"{factor:.0f} of the least the per-row cross-entropy over this output can "
                f"average ({floor:.3g}, whatever the targets): the per-row losses "
                "(reduction='none') were multiplied by factors averaging far below 1 - class "
                "weights such as 1 / count - before the mean, so every gradient is that much "
                "smaller" + (" and the model barely learns." if poor else "."),
        evidence={"steps": [m[0] for m in matches], "stepped_losses": [m[1] for m in matches],
                  "per_row_floor": [m[2] for m in matches], "factor": factor,
                  "steps_checked": checked, "learning_poor": bool(poor)},
        fix="Normalise the weights (weights / weights[targets].mean(), or so they sum to the "
            "number of classes), divide the weighted sum by the sum of the rows' weights, or "
            "use CrossEntropyLoss(weight=class_weights), which does that division itself.")
