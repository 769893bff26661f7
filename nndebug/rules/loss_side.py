"""Rules about what reaches the loss: shapes that broadcast inside it, a sigmoid applied twice,
and the warnings the framework raised inside watched steps.

They read ``run.observed`` (``nndebug.observed``): the loss calls the monitor saw (through
``watch(..., loss_fn=...)`` or the hooks of a loss module) and the warnings raised while a
step was watched. The checks themselves are plain functions on shapes and numbers
(``broadcast_shape``, ``shape_mismatch``, ``sigmoid_outputs``), tested alone.
"""
import math
import re

from ..findings import Finding
from .context import (LOG_SMOOTHING_SLACK, MAJORITY, MIN_RECORDS, ROW_SUM_TOLERANCE, fmt,
                      judged_loss_calls, judged_only, observed_list, short_list)
from .graph import rule

# losses that compare output and target element by element (their shapes must be equal);
# torch class names and functional names, minigrad spells them alike
ELEMENTWISE_LOSSES = {
    "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss",
    "SoftMarginLoss", "PoissonNLLLoss", "KLDivLoss", "mse_loss", "l1_loss", "smooth_l1_loss",
    "huber_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
}
# losses that apply a sigmoid to their input themselves (they expect logits)
SIGMOID_LOSSES = {"BCEWithLogitsLoss", "binary_cross_entropy_with_logits",
                  "MultiLabelSoftMarginLoss", "multilabel_soft_margin_loss"}
# losses that take log-probabilities (a log_softmax output: every value <= 0); KLDivLoss
# takes them as its input whatever its target is (log_target only changes the target)
LOG_PROBABILITY_LOSSES = {"NLLLoss", "nll_loss", "KLDivLoss", "kl_div"}
KL_LOSSES = {"KLDivLoss", "kl_div"}
# losses whose target is a probability in [0, 1] (binary labels, soft labels)
PROBABILITY_TARGET_LOSSES = {"BCELoss", "BCEWithLogitsLoss", "binary_cross_entropy",
                             "binary_cross_entropy_with_logits"}
ROUNDING = 1e-6               # [design] float32 rounding allowed around 0 and 1 (labels
                              # are exact)
# torch's own words when a loss broadcasts output and target (F.mse_loss, F.l1_loss, ...)
BROADCAST_WARNING = re.compile(r"target size \((?:torch\.Size\()?\[?([\d, ]*)\]?\)?\) that is "
                               r"different to the input size \((?:torch\.Size\()?\[?([\d, ]*)"
                               r"\]?\)?\)")
MAX_WARNINGS_REPORTED = 5     # [design] distinct framework warnings listed, at most
# torch's words for a softmax (log_softmax, softmin) called without dim (real-bug batch 333)
IMPLICIT_DIM_WARNING = re.compile(r"Implicit dimension choice for (\w+) has been deprecated")
IMPLICIT_DIM_RISKY = 3        # [design] from torch's _get_softmax_dim: dim 0 for 0, 1 or 3
                              # dimensions, else 1. On 2-D (samples, classes) that is the rows'
                              # own axis; from 3 on it is the batch axis (3-D: a batch-first
                              # (N, T, C) output normalised across samples) or the second axis
                              # whatever it holds (a capsule layer's input capsules: Capsule-
                              # Network-Tutorial#7)
# a sigmoid applied to probabilities before a loss that takes probabilities (BCELoss):
# sigmoid maps [0, 1] onto [0.5, 0.731]; core variants (issue #10)
PROBABILITY_INPUT_LOSSES = {"BCELoss", "binary_cross_entropy"}
SIGMOID_OF_ZERO = 0.5                          # [design] sigmoid(0)
SIGMOID_SATURATED = 1.0       # [design] (core variants 4) a float32 sigmoid's largest value,
                              # reached exactly from a logit of ~17 (its smallest, 0.0, only
                              # below ~-103)
SIGMOID_OF_ONE = 1 / (1 + math.exp(-1))        # [design] sigmoid(1) = 0.731
BAND_LATE_STEP = 20           # [design] a fresh model's outputs can sit near 0.5 for a few
                              # steps; the band must still hold on a call after this step


# --- plain checks on shapes and numbers ---------------------------------------------------------
def broadcast_shape(a, b):
    """The shape NumPy/torch broadcasting gives ``a`` and ``b``, or None when they do not
    broadcast (the framework raises then: no silent bug)."""
    a, b = tuple(a), tuple(b)
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and 1 not in (x, y):
            return None
        out.append(max(x, y))
    return tuple(reversed(out))


def shape_mismatch(output_shape, target_shape):
    """Evidence when output and target of an element-wise loss differ in shape but
    broadcast, else None. ``cross_pairs``: the loss compares every output with several
    targets (e.g. (N, 1) against (N,) gives N x N pairs) instead of one with one."""
    output_shape, target_shape = tuple(output_shape), tuple(target_shape)
    if output_shape == target_shape:
        return None
    together = broadcast_shape(output_shape, target_shape)
    if together is None:
        return None
    pairs = math.prod(together)
    expected = max(math.prod(output_shape), math.prod(target_shape))
    # (real-bug batch 137) fewer outputs than targets: each prediction stands for several
    # targets - a graph readout pooled the whole batch into one row, (1, 1) against (32, 1)
    # (real-bug batch 238) the other way round, within each sample: one target per sample
    # copied across that sample's K outputs - a head run on every time step and flattened,
    # (32, 24) against (32, 1). Same rank, same batch axis, the target 1 wide on an axis
    # where the output is wider; a target of shape (1,) (one constant for the whole batch)
    # is not this.
    targets_copied = (len(output_shape) == len(target_shape) >= 2
                      and output_shape[0] == target_shape[0] > 1
                      and any(t == 1 < o for o, t in zip(output_shape[1:], target_shape[1:])))
    return {"output_shape": list(output_shape), "target_shape": list(target_shape),
            "broadcast_shape": list(together), "pairs": pairs, "expected_pairs": expected,
            "cross_pairs": pairs > expected,
            "outputs_shared": math.prod(output_shape) < math.prod(target_shape),
            "targets_copied": targets_copied and pairs == expected}


def shapes_from_warning(message):
    """(output shape, target shape) parsed from torch's broadcast warning, or None."""
    match = BROADCAST_WARNING.search(message)
    if match is None:
        return None

    def parse(text):
        return tuple(int(part) for part in text.replace(" ", "").split(",") if part)
    return parse(match.group(2)), parse(match.group(1))


def sigmoid_outputs(calls):
    """Whether every call fed the loss values strictly inside (0, 1), as a sigmoid gives
    (logits take any sign; ReLU outputs touch 0 exactly). None without enough calls.
    (core variants 4) A float32 sigmoid rounds to exactly 1.0 from a logit of about 17 up
    but to 0.0 only below about -103, and the logits-based loss on a sigmoid drives the
    positives' logits up without end (Adam, long runs): the first measured call must lie
    strictly inside (0, 1), later ones may touch 1.0 exactly, never 0 or below."""
    measured = [c for c in calls if math.isfinite(c.output_min) and math.isfinite(c.output_max)]
    if len(measured) < MIN_RECORDS:
        return None
    first = min(measured, key=lambda c: c.step)
    return first.output_max < 1.0 and \
        all(0.0 < c.output_min and c.output_max <= SIGMOID_SATURATED for c in measured)


def not_log_probabilities(calls):
    """Whether the inputs of a log-probability loss held positive values on most calls (a
    log-probability never exceeds 0): probabilities (softmax without the log) or raw
    logits. None without enough measured calls."""
    measured = [c for c in calls if math.isfinite(c.output_max)]
    if len(measured) < MIN_RECORDS:
        return None
    return sum(c.output_max > LOG_SMOOTHING_SLACK for c in measured) >= \
        MAJORITY * len(measured)


def targets_outside_unit_interval(calls):
    """The calls whose targets left [0, 1] (a probability target never does)."""
    return [c for c in calls if math.isfinite(c.target_min) and math.isfinite(c.target_max)
            and (c.target_min < -ROUNDING or c.target_max > 1 + ROUNDING)]


# --- the rules ----------------------------------------------------------------------------------
def _observed(ctx):
    return getattr(ctx.run, "observed", None)


@rule(produces="LOSS_SHAPE_MISMATCH",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE", "LOSS_DIVERGING", "LOSS_OSCILLATING"})
def loss_shape_mismatch(ctx):
    """LOSS_SHAPE_MISMATCH: output and target shapes that broadcast against each other inside the
    loss ((N, 1) against (N,)), so every output is compared with every target."""
    observed = _observed(ctx)
    if observed is None:
        return None
    seen = []      # (step, loss, evidence, how it was seen)
    for call in judged_only(ctx, observed.loss_calls):
        if call.loss in ELEMENTWISE_LOSSES and call.target_shape is not None:
            evidence = shape_mismatch(call.output_shape, call.target_shape)
            if evidence is not None:
                seen.append((call.step, call.loss, evidence, "loss call"))
    for warning in observed.warnings:
        shapes = shapes_from_warning(warning.message)
        if shapes is not None:
            evidence = shape_mismatch(*shapes)
            if evidence is not None:
                evidence["warning"] = warning.message
                seen.append((warning.step, warning.where or "the loss", evidence,
                             "framework warning"))
    if not seen:
        return None
    step, loss, evidence, how = min(seen, key=lambda s: s[0])
    out, target, both = evidence["output_shape"], evidence["target_shape"], \
        evidence["broadcast_shape"]
    if evidence["cross_pairs"]:
        message = (f"{loss} compares an output of shape {tuple(out)} with a target of shape "
                   f"{tuple(target)}: they broadcast to {tuple(both)}, so every output is "
                   f"compared with {evidence['pairs'] // evidence['expected_pairs']} targets "
                   "instead of its own. The loss still falls (towards the mean of the targets) "
                   "while the model learns nothing about each sample.")
        severity = "error"
    elif evidence.get("outputs_shared"):
        shared = math.prod(target) // max(math.prod(out), 1)
        message = (f"{loss} compares an output of shape {tuple(out)} with a target of shape "
                   f"{tuple(target)}: there are fewer predictions than targets, so each "
                   f"prediction is compared with {shared} targets of different samples. The "
                   "model's output lost its rows on the way (a pooling or mean over the "
                   "whole batch, a readout without its batch index): the loss falls towards "
                   "the targets' mean while nothing is learned per sample.")
        severity = "error"
    elif evidence.get("targets_copied"):
        copies = math.prod(out) // max(math.prod(target), 1)
        message = (f"{loss} compares an output of shape {tuple(out)} with a target of shape "
                   f"{tuple(target)}: each sample has {copies} times as many outputs as "
                   f"targets, and broadcasting copies each target value onto {copies} outputs, "
                   "so they are all trained towards the same number. A model meant "
                   "to give one value per sample has a head that is too wide: a head run on "
                   "every time step (or every position) and flattened, where only the last "
                   "step should be read.")
        severity = "warning"
    else:
        message = (f"{loss} gets an output of shape {tuple(out)} and a target of shape "
                   f"{tuple(target)}: the values pair up one to one after broadcasting, but "
                   "the shapes should match exactly.")
        severity = "info"
    return Finding(
        code="LOSS_SHAPE_MISMATCH", severity=severity, where=loss, step=step, message=message,
        evidence={**evidence, "seen_through": how, "times_seen": len(seen)},
        fix="Make the output and the target the same shape before the loss: "
            "output.squeeze(1) for a (N, 1) output against (N,) targets, or "
            "target.unsqueeze(1) (view(-1, 1)) the other way round.")


@rule(produces="DOUBLE_SIGMOID", explains={"LOSS_PLATEAU", "SATURATED_ACTIVATIONS"})
def double_sigmoid(ctx):
    observed = _observed(ctx)
    if observed is None:
        return None
    calls = judged_loss_calls(ctx, SIGMOID_LOSSES)
    if not sigmoid_outputs(calls):
        return _sigmoid_of_probabilities(ctx)
    sigmoid_layers = [layer.name for layer in ctx.run.layers if layer.kind == "sigmoid"]
    where = sigmoid_layers[-1] if sigmoid_layers else calls[0].loss
    low = min(c.output_min for c in calls)
    high = max(c.output_max for c in calls)
    if _softmax_rows(calls):      # real-bug batch 54: a softmax, not a sigmoid, before it
        return _softmax_before_sigmoid_loss(ctx, calls, low, high)
    return Finding(
        code="DOUBLE_SIGMOID", severity="error", where=where, step=calls[0].step,
        message=f"{calls[0].loss} applies a sigmoid to its input, and every input it got lies "
                f"strictly between 0 and 1 ({fmt(low)} to {fmt(high)} over {len(calls)} "
                "recorded calls): the model's output is already a sigmoid probability. The "
                "loss squashes it again into [0.5, 0.73], so a prediction can never go below "
                "0.5 (the loss of every negative sample stays above ln 2 = 0.69) and the "
                "gradients shrink.",
        evidence={"loss": calls[0].loss, "input_min": low, "input_max": high,
                  "calls": len(calls), "sigmoid_layers": sigmoid_layers},
        fix="Remove the final sigmoid from the model and keep the logits-based loss "
            "(BCEWithLogitsLoss); apply torch.sigmoid only to turn logits into predictions.")


def _sigmoid_of_probabilities(ctx):
    """DOUBLE_SIGMOID for a loss that takes probabilities (BCELoss) fed a sigmoid of
    probabilities: every input it got, on every recorded call, lies in [0.5, 0.731] - the
    image of [0, 1] under a sigmoid - while its targets hold 0s, which such an input can
    never get below 0.5. A model's own output (a sigmoid of logits) takes values on both
    sides of 0.5 as soon as it tells samples apart."""
    calls = judged_loss_calls(ctx, PROBABILITY_INPUT_LOSSES)
    measured = [c for c in calls if _number(c.output_min) and _number(c.output_max)]
    if len(measured) < MIN_RECORDS or max(c.step for c in measured) < BAND_LATE_STEP:
        return None
    if not all(c.output_min >= SIGMOID_OF_ZERO - ROUNDING and
               c.output_max <= SIGMOID_OF_ONE + ROUNDING for c in measured):
        return None
    if not any(_number(c.target_min) and c.target_min <= ROUNDING for c in measured):
        return None
    low = min(c.output_min for c in measured)
    high = max(c.output_max for c in measured)
    sigmoid_layers = [layer.name for layer in ctx.run.layers if layer.kind == "sigmoid"]
    return Finding(
        code="DOUBLE_SIGMOID", severity="error",
        where=sigmoid_layers[-1] if sigmoid_layers else measured[0].loss,
        step=measured[0].step,
        message=f"{measured[0].loss} takes probabilities, and every input it got lies between "
                f"{fmt(low)} and {fmt(high)} over {len(measured)} recorded calls: inside "
                f"[0.5, {SIGMOID_OF_ONE:.3f}], what a sigmoid makes of values in [0, 1]. The "
                "model's probabilities went through a second sigmoid, so no prediction can go "
                "below 0.5: every negative target costs at least ln 2 = 0.69, and the "
                "gradients shrink.",
        evidence={"loss": measured[0].loss, "input_min": low, "input_max": high,
                  "calls": len(measured), "band": [SIGMOID_OF_ZERO, SIGMOID_OF_ONE],
                  "sigmoid_layers": sigmoid_layers},
        fix="Apply the sigmoid once: remove the extra torch.sigmoid (or the model's final "
            "nn.Sigmoid), or drop both and use BCEWithLogitsLoss on the logits.")


def _number(value):
    return isinstance(value, (int, float)) and math.isfinite(value)


def _softmax_rows(calls):
    """Whether every call's input rows sum to 1 (a softmax over 2+ labels made them)."""
    return all(c.row_sum_error is not None and c.row_sum_error < ROW_SUM_TOLERANCE
               for c in calls)


def _softmax_before_sigmoid_loss(ctx, calls, low, high):
    """DOUBLE_SIGMOID's finding when the probabilities the loss squashes again come from a
    softmax: a multi-label model whose labels were made to compete ("Loss Calculation:
    MultilabelSoftMarginLoss on top of Softmax Output?",
    https://github.com/YapengTian/AVE-ECCV18/issues/15)."""
    softmax_layers = [layer.name for layer in ctx.run.layers if layer.kind == "softmax"]
    return Finding(
        code="DOUBLE_SIGMOID", severity="error",
        where=softmax_layers[-1] if softmax_layers else calls[0].loss, step=calls[0].step,
        message=f"{calls[0].loss} applies a sigmoid to each of its inputs, and every input row "
                f"it got is a softmax: values between 0 and 1 ({fmt(low)} to {fmt(high)}) "
                f"that sum to 1, over {len(calls)} recorded calls. The loss squashes them "
                "again into [0.5, 0.73], so an absent label can never be scored below 0.5, "
                "and the softmax makes the labels compete for one unit of probability, "
                "which labels that can be present together must not.",
        evidence={"loss": calls[0].loss, "input_min": low, "input_max": high,
                  "calls": len(calls), "rows_sum_to_one": True,
                  "softmax_layers": softmax_layers},
        fix="Remove the softmax from the model and give the loss the logits (it applies one "
            "sigmoid per label itself); apply torch.sigmoid to the logits for per-label "
            "probabilities.")


@rule(produces="NLL_ON_PROBABILITIES",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE", "LOSS_DIVERGING"})
def nll_on_probabilities(ctx):
    observed = _observed(ctx)
    if observed is None:
        return None
    calls = judged_loss_calls(ctx, LOG_PROBABILITY_LOSSES)
    if not not_log_probabilities(calls):
        return _probabilities_maximised(ctx)   # real-bug batch 68: -sigmoid(s).mean()
    low = min(c.output_min for c in calls)
    high = max(c.output_max for c in calls)
    rows_sum_to_one = all(c.row_sum_error is not None and
                          c.row_sum_error < ROW_SUM_TOLERANCE and c.output_min >= -ROUNDING
                          for c in calls)
    softmax_layers = [layer.name for layer in ctx.run.layers if layer.kind == "softmax"]
    where = softmax_layers[-1] if softmax_layers and rows_sum_to_one else calls[0].loss
    kl = calls[0].loss in KL_LOSSES
    if rows_sum_to_one and kl:
        what = ("probabilities (non-negative rows that sum to 1: a softmax without the log), "
                "so the loss is sum target * (log target - p), not the KL divergence: it "
                "rewards raising p where the target is large, but is not minimised by p = "
                "target, and its gradient is weak where the model is most wrong")
        fix = ("Give KLDivLoss the log-probabilities: F.log_softmax(scores, dim=-1) as its "
               "input (the target stays probabilities, or log-probabilities with "
               "log_target=True).")
    elif rows_sum_to_one:
        what = ("probabilities (non-negative rows that sum to 1: a softmax without the log), "
                "so the loss is minus the probability of the right class: it lies in [-1, 0], "
                "and its gradient vanishes where the model is most wrong")
        fix = ("End the model in log_softmax (nn.LogSoftmax(dim=1)) instead of softmax, or "
               "drop the softmax and use CrossEntropyLoss on the logits.")
    elif kl:
        what = ("raw scores (positive values are no log-probabilities), so the loss is "
                "minus the target-weighted sum of the scores: unbounded below, it grows them "
                "without end")
        fix = "Give KLDivLoss F.log_softmax(scores, dim=-1) as its input, not the scores."
    else:
        what = ("raw scores (positive values are no log-probabilities), so the loss is minus "
                "the score of the right class: unbounded below, it grows that score without "
                "end")
        fix = ("Apply F.log_softmax(logits, dim=1) before NLLLoss, or give the logits to "
               "CrossEntropyLoss (log_softmax + NLLLoss in one).")
    return Finding(
        code="NLL_ON_PROBABILITIES", severity="error", where=where, step=calls[0].step,
        message=f"{calls[0].loss} expects log-probabilities (every value <= 0), but its inputs "
                f"range from {fmt(low)} to {fmt(high)} over {len(calls)} recorded calls: they "
                f"are {what}.",
        evidence={"loss": calls[0].loss, "input_min": low, "input_max": high,
                  "calls": len(calls), "rows_sum_to_one": rows_sum_to_one},
        fix=fix)


def _probabilities_maximised(ctx):
    """NLL_ON_PROBABILITIES for a loss written by hand as minus a mean probability,
    ``-torch.sigmoid(sign * score).mean()`` or ``(1 - sigmoid(pos - neg)).mean()``, where
    the log-likelihood was meant (``run.observed.maximised_probabilities``, read off the
    loss's graph: ``monitor/maximised_probabilities.py``; RUCAIBox/RecBole#1505). Named from
    the graph alone: the whole loss is that mean, nothing else is added to it."""
    rows = [row for row in observed_list(ctx, "maximised_probabilities") if row[3] < 0]
    if not rows:
        return None
    step, function, reduction = rows[0][:3]
    log = "F.logsigmoid(s)" if function == "sigmoid" else "F.log_softmax(s, dim=1)"
    return Finding(
        code="NLL_ON_PROBABILITIES", severity="warning", where="loss", step=step,
        message=f"The loss is minus the {reduction} of {function} outputs (probabilities), "
                "not of their logs: it lies between -1 and 0, and its gradient, the "
                f"{function}'s slope, vanishes where the model is most wrong (a probability "
                "near 0 it should raise), so the samples scored the wrong way are the ones "
                "it stops correcting.",
        evidence={"function": function, "reduction": reduction,
                  "steps": sorted({row[0] for row in rows})},
        fix=f"Maximise the log-likelihood: -{log}.{reduction}() (for a sign * score "
            "negative-sampling or BPR loss, -F.logsigmoid(sign * score).mean()); "
            "F.binary_cross_entropy_with_logits does the same for 0/1 labels.")


@rule(produces="TARGETS_OUT_OF_RANGE",
      explains={"LOSS_DIVERGING", "LOSS_OSCILLATING", "LOSS_PLATEAU", "NAN_LOSS"})
def targets_out_of_range(ctx):
    """TARGETS_OUT_OF_RANGE: targets outside what the loss accepts (a binary cross-entropy's
    targets outside [0, 1])."""
    observed = _observed(ctx)
    if observed is None:
        return None
    calls = [c for c in judged_only(ctx, observed.loss_calls)
             if c.loss in PROBABILITY_TARGET_LOSSES]
    outside = targets_outside_unit_interval(calls)
    if not outside:
        return None
    low = min(c.target_min for c in outside)
    high = max(c.target_max for c in outside)
    return Finding(
        code="TARGETS_OUT_OF_RANGE", severity="error", where=outside[0].loss,
        step=outside[0].step,
        message=f"{outside[0].loss} takes targets that are probabilities in [0, 1], but its "
                f"targets range from {fmt(low)} to {fmt(high)} ({len(outside)} of {len(calls)} "
                "recorded calls): outside [0, 1] the loss has no minimum (for a target of -1 "
                "it is 2 x logit + softplus(-logit)), so it falls below zero without end while "
                "the logits run off to infinity.",
        evidence={"loss": outside[0].loss, "target_min": low, "target_max": high,
                  "calls_outside": len(outside), "calls": len(calls)},
        fix="Give the loss 0/1 labels (or probabilities): labels in {-1, 1} become "
            "(y + 1) / 2; a mask normalised like the image ((y - 0.5) / 0.5) must not be: "
            "normalise the inputs only. Class ids 0..C-1 belong in CrossEntropyLoss.")


@rule(produces="FRAMEWORK_WARNING")
def framework_warnings(ctx):
    """FRAMEWORK_WARNING: a warning the framework raised inside a watched step, kept with its step
    instead of lost in the console."""
    observed = _observed(ctx)
    if observed is None or not observed.warnings:
        return None
    distinct = {}
    for warning in observed.warnings:
        if shapes_from_warning(warning.message) is not None:
            continue      # LOSS_SHAPE_MISMATCH tells that one, with the shapes
        distinct.setdefault((warning.category, warning.message), warning)
    findings = []
    for (category, text), warning in list(distinct.items())[:MAX_WARNINGS_REPORTED]:
        where = f" in {warning.where}" if warning.where else ""
        implicit = _implicit_softmax_dim(warning, where)
        if implicit is not None:
            findings.append(implicit)
            continue
        findings.append(Finding(
            code="FRAMEWORK_WARNING", severity="info", where=warning.where, step=warning.step,
            message=f"The framework warned{where} at step {warning.step}: {category}: {text}",
            evidence={"category": category, "warning": text, "file": warning.filename,
                      "line": warning.lineno,
                      "others": short_list(sorted({c for c, _ in distinct})) if
                      len(distinct) > 1 else ""},
            fix="Read the warning: it was raised inside your training step (watch keeps it "
                "here instead of letting it scroll away in the console)."))
    return findings


def _implicit_softmax_dim(warning, where):
    """A warning-severity FRAMEWORK_WARNING for a softmax called without dim on a tensor of
    IMPLICIT_DIM_RISKY dimensions or more (the dimensions read when the warning was shown:
    ``RaisedWarning.input_dims``), or None."""
    match = IMPLICIT_DIM_WARNING.search(warning.message)
    dims = getattr(warning, "input_dims", -1)
    if match is None or dims is None or dims < IMPLICIT_DIM_RISKY:
        return None
    function, chosen = match.group(1), 0 if dims == 3 else 1
    axis = ("the batch axis of a batch-first tensor: each value is normalised across the "
            "samples of the batch" if chosen == 0 else
            "the second axis, whatever it holds (right only for classes in the channel "
            "axis of an image batch)")
    line = f" ({warning.filename}:{warning.lineno})" if warning.filename else ""
    return Finding(
        code="FRAMEWORK_WARNING", severity="warning", where=warning.where, step=warning.step,
        message=f"A {function} was called without dim{where}{line} at step {warning.step} on a "
                f"{dims}-D tensor: torch then picks dim {chosen}, {axis}. The framework warned "
                f"({warning.category}: {warning.message}); the weights are probably normalised "
                "over the wrong axis.",
        evidence={"category": warning.category, "warning": warning.message,
                  "file": warning.filename, "line": warning.lineno, "input_dims": dims,
                  "dim_chosen": chosen, "threshold": IMPLICIT_DIM_RISKY},
        fix=f"Give the axis the {function} must normalise over: {function}(x, dim=-1) for "
            "classes in the last axis, or the axis you mean (a capsule layer's routing "
            "softmax runs over the parent capsules).")
