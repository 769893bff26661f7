"""CTC_NOT_LOG_PROBABILITIES: a CTC loss (``nn.CTCLoss``, ``F.ctc_loss``) given scores that
are not log-probabilities: raw logits (the ``log_softmax`` left out) or probabilities (a
softmax without the log).

CTC sums the probabilities of every alignment of the target, reading its input as
log-probabilities over the labels of each frame. Raw scores make that sum meaningless: the
loss starts below zero, and torch's CTC gradient, written for normalised inputs
(softmax minus the alignment posterior), pulls the frames towards the blank. The model then
emits only blanks while the loss looks like it is training.

A log-probability never exceeds 0, so one recorded call whose input holds a clearly
positive value is enough: the model learns to push its raw scores below 0 within a few
hundred steps (that same gradient drives the frames towards normalised ones), so the first
calls are where it shows, and later ones may look like log-probabilities. Read from what
reached the loss (``run.observed.loss_calls``: the largest and smallest input value of each
recorded call of a loss module, of ``F.ctc_loss`` called as a function, or of the
``loss_fn`` given to watch).

Values that are all <= 0 can still be no log-probabilities over the labels: a
``log_softmax`` without ``dim`` on (T, N, C) scores normalises each label over the frames
(PyTorch's implicit dim 0), and the model is trained to spread each label over time
(real-bug batch 176: no line of the held-out set read right). The first calls' inputs are
measured for that (``monitor/log_prob_axes.py``: exp summed over the label axis, the last).
"""
import math

from ..findings import Finding
from .context import fmt, judged_loss_calls
from .graph import rule

CTC_LOSSES = {"CTCLoss", "ctc_loss"}
CTC_LOG_SLACK = 0.01         # [design] log(p + eps) exceeds 0 by about eps: smoothing
                             # constants up to 1e-2 still pass as log-probabilities (the
                             # slack NLL_ON_PROBABILITIES allows); a raw logit of a fresh
                             # linear layer is about +-0.1 to 1, a softmax's top value >= 1/C
CTC_UNNORMALISED = 0.05      # [measured] |sum over the labels of exp - 1| beyond which a
                             # frame holds no distribution: a log_softmax over time misses by
                             # 0.55 or more on every call (batch 176's (24, 32, 11) inputs),
                             # one over the labels by under 1e-6
CTC_MIN_MEASURED = 2         # [design] two measured calls agree before an error is given
CTC_ROUNDING = 1e-6          # [design] float32 rounding allowed around 0 and 1


def positive_calls(calls):
    """The calls whose input held a value above CTC_LOG_SLACK (no log-probability)."""
    return [c for c in calls if math.isfinite(c.output_max) and
            c.output_max > CTC_LOG_SLACK]


def looks_like_probabilities(calls):
    """Every measured input in [0, 1]: a softmax without the log."""
    measured = [c for c in calls if math.isfinite(c.output_min) and math.isfinite(c.output_max)]
    return bool(measured) and all(c.output_min >= -CTC_ROUNDING and
                                  c.output_max <= 1 + CTC_ROUNDING for c in measured)


@rule(produces="CTC_NOT_LOG_PROBABILITIES",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE", "LOSS_DIVERGING", "LOSS_OSCILLATING"})
def ctc_not_log_probabilities(ctx):
    calls = judged_loss_calls(ctx, CTC_LOSSES)
    positive = positive_calls(calls)
    if not positive:
        return _normalised_over_another_axis(calls)
    first = positive[0]
    low = min(c.output_min for c in positive)
    high = max(c.output_max for c in positive)
    if looks_like_probabilities(positive):
        what = ("probabilities (a softmax without the log): CTC reads them as log-"
                "probabilities near 0, so every label of every frame looks almost certain")
        fix = "Replace the softmax with F.log_softmax(scores, dim=-1) (the label axis)."
    else:
        what = ("raw scores (the log_softmax is missing): the loss is no likelihood (it "
                "can fall below zero), and torch's CTC gradient, written for normalised "
                "inputs, drags the frames towards the blank: the model learns to emit "
                "nothing")
        fix = ("Apply F.log_softmax(scores, dim=-1) over the label axis before the CTC "
               "loss ((time, batch, labels) scores: dim=2).")
    return Finding(
        code="CTC_NOT_LOG_PROBABILITIES", severity="error", where=first.loss,
        step=first.step,
        message=f"{first.loss} expects log-probabilities (every value <= 0), but its input "
                f"ranged from {fmt(low)} to {fmt(high)} on {len(positive)} of "
                f"{len(calls)} recorded calls: they are {what}.",
        evidence={"loss": first.loss, "input_min": low, "input_max": high,
                  "positive_calls": len(positive), "calls": len(calls),
                  "first_step": first.step},
        fix=fix)


def _normalised_over_another_axis(calls):
    """CTC_NOT_LOG_PROBABILITIES for inputs <= 0 whose exp does not sum to 1 over the labels
    (the last axis) on every measured call; None otherwise."""
    measured = [c for c in calls if c.class_mass_error is not None]
    if len(measured) < CTC_MIN_MEASURED or not all(c.class_mass_error > CTC_UNNORMALISED
                                                    for c in measured):
        return None
    first = measured[0]
    error = min(c.class_mass_error for c in measured)
    over_time = all(c.batch_mass_error is not None and c.batch_mass_error < CTC_UNNORMALISED
                    for c in measured)
    where = ("they were normalised over the frames (dim 0, time) instead: a log_softmax "
             "without dim takes PyTorch's implicit dim 0 on a 3-D tensor" if over_time else
             "they are normalised over no axis the loss reads")
    return Finding(
        code="CTC_NOT_LOG_PROBABILITIES", severity="error", where=first.loss, step=first.step,
        message=f"{first.loss} expects log-probabilities over the labels of each frame (the "
                f"last axis of its {tuple(first.output_shape)} input), but their exp misses 1 "
                f"over that axis by {fmt(error)} or more on {len(measured)} measured calls: "
                f"{where}. Every frame's 'distribution' is then no distribution, and the "
                "model is trained to spread each label over time.",
        evidence={"loss": first.loss, "shape": tuple(first.output_shape),
                  "label_mass_error": error, "normalised_over_time": over_time,
                  "calls": len(measured), "first_step": first.step},
        fix="Name the label axis: F.log_softmax(scores, dim=-1) ((time, batch, labels) "
            "scores: dim=2).")
