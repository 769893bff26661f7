"""Targets that do not fit the task the loss was chosen for.

Four mistakes that train without an error and without a NaN, read from what reached the
loss (``run.observed.loss_calls``):

- TARGETS_OUTSIDE_OUTPUT_RANGE: a regression loss whose targets lie beyond what the
  model's last layer can output (a sigmoid never exceeds 1, a tanh never leaves [-1, 1], a
  ReLU is never negative): targets left in raw units (pixels 0-255) while the output is
  squashed, or standardised targets behind a final ReLU. Without such a layer, an output
  that stays in [-1, 1] pressed against a bound while the targets lie beyond it: a cosine
  similarity regressed on raw scores (batches 295, 296). A regression error written by
  hand (``((output - target) ** 2).mean()``) shows no loss call; its largest prediction
  and target magnitudes (``run.observed.handwritten_errors``) are read instead, for a last
  layer bounded on both sides (a line fit ending in tanh, star ratings behind a sigmoid).
- TARGETS_ALL_ONE_CLASS: every target of a class-index loss (cross-entropy, NLL) is the
  same class, on every recorded step: the labels were built wrong (a colour or a name that
  never matches), the loss falls to zero and the accuracy reads 1.00 while nothing is
  learned. A binary loss is left out: a GAN's discriminator gets all-ones targets for its
  real batch on purpose (the first loss call of each step, the one recorded).
- MULTI_LABEL_WITH_CROSS_ENTROPY: cross-entropy given multi-hot targets (several 1s in a
  row). torch takes a float target of the output's shape as class probabilities and does
  not check that a row sums to 1, so the softmax makes labels that do not exclude each
  other compete for one unit of probability. The same competition comes one step earlier
  when a binary cross-entropy gets multi-hot targets and softmax rows as inputs.
- SINGLE_LABEL_WITH_BCE: a binary cross-entropy given one-hot targets over 3 or more
  columns, exactly one 1 in every row: a single-label task whose classes no longer compete
  (a Hugging Face classifier switches to BCE when its labels come as floats).

The row sums come from the first rows of each recorded call's targets, carried to the host
by the step's one transfer (``LossCall.label_rows`` and its neighbours,
``monitor/loss_capture.py``): the same on an accelerator, and in a saved run.
"""
import math

from ..findings import Finding
from .context import (CLASS_INDEX_LOSSES, MAJORITY, REGRESSION_LOSSES, ROW_SUM_TOLERANCE, fmt,
                      judged_handwritten_errors, judged_loss_calls)
from .contrastive_targets import positive_first_contrast
from .graph import rule

# regression losses: their target is a value the output should reach
# what a bounding last layer can output (torch's Sigmoid/Hardsigmoid, Tanh/Hardtanh
# defaults; a ReLU's output is never negative)
OUTPUT_RANGE = {"sigmoid": (0.0, 1.0), "tanh": (-1.0, 1.0), "relu": (0.0, math.inf)}
# layers that leave the values' range as it is (the last layer that counts comes before them)
PASS_THROUGH = {"Dropout", "Identity", "Flatten", "Unflatten"}
BEYOND_SHARE = 0.25           # [design] targets beyond the output's bound by more than a
                              # quarter of its width: far beyond rounding or label smoothing
                              # (a healthy target sits inside the range)
# losses whose targets are class ids or per-class probabilities
SOFTMAX_LOSSES = {"CrossEntropyLoss", "cross_entropy"}
BINARY_LOSSES = {"BCELoss", "BCEWithLogitsLoss", "binary_cross_entropy",
                 "binary_cross_entropy_with_logits"}
MIN_TARGET_CALLS = 3          # [design] recorded loss calls needed before a verdict on targets
MIN_ROWS = 16                 # [design] target rows read before a verdict on row sums
MIN_LABEL_COLUMNS = 3         # [design] one-hot over 2 columns is a legitimate binary set-up
EXACT = 1e-6                  # [design] an output at its bound, up to float32 rounding


def _margin(low, high, call):
    """How far beyond the output's bound a target must lie: a quarter of the range's width,
    or of the targets' own spread when the range is open on one side (a ReLU's [0, inf):
    standardised targets reach about as far below 0 as above it)."""
    width = high - low if math.isfinite(high - low) else call.target_max - call.target_min
    return BEYOND_SHARE * width


def _squashing_last_layer(ctx):
    """(name, kind, (low, high)) of the model's last layer when it squashes its output
    (the layers in the order the model registered them; the outputs' range is checked
    against the bound as well, so a model whose registration order is not its forward
    order is not judged by a hidden layer)."""
    layers = [layer for layer in ctx.run.layers if layer.type not in PASS_THROUGH]
    if not layers or layers[-1].kind not in OUTPUT_RANGE:
        return None
    return layers[-1].name, layers[-1].kind, OUTPUT_RANGE[layers[-1].kind]


UNIT_BOUND = 1.0              # [design] a cosine similarity (or a dot product of unit vectors)
                              # never leaves [-1, 1]
PRESSED = 0.97                # [design] on a late call, the output nearest the bound it pushes
                              # at reaches this far (and none is on the other side of 0): the
                              # batch pinned at a cosine of 0.95-1.0 in batches 295 and 296,
                              # whose twins spread from -0.4 to 1


def _unit_bounded_output(calls):
    """(real-bug batches 295, 296) (calls beyond, bound) when the regression's outputs never left
    [-1, 1] on any recorded call, on every call of the last third all of them sat in
    one bound's half with the nearest reaching PRESSED of it, and most
    calls' targets lie beyond that bound by more than a quarter of the range: the output is a
    cosine similarity (``F.cosine_similarity``, ``CosineEmbedding``-style heads, a dot product
    of L2-normalised vectors) regressed on raw scores - STS's 0-5, star ratings 1-5 - which it
    cannot reach, so every pair is pulled to the same cosine. No layer says so (the bound is
    a function in forward), hence the outputs must show it. Else None."""
    if any(not (-UNIT_BOUND - EXACT <= c.output_min and c.output_max <= UNIT_BOUND + EXACT)
           for c in calls):
        return None
    late = calls[-max(MIN_TARGET_CALLS, len(calls) // 3):]     # the last third, 3 at least
    margin = _margin(-UNIT_BOUND, UNIT_BOUND, calls[0])          # a quarter of the range
    for sign in (1.0, -1.0):
        bound = sign * UNIT_BOUND
        pressed = all((c.output_min if sign > 0 else -c.output_max) >= 0 and
                      (c.output_max if sign > 0 else -c.output_min) >= PRESSED for c in late)
        beyond = [c for c in calls if (c.target_max > bound + margin if sign > 0 else
                                       c.target_min < bound - margin)]
        if pressed and beyond and len(beyond) >= MAJORITY * len(calls):
            return beyond, bound
    return None


def _unit_bounded_finding(calls, beyond, bound):
    t_low = min(c.target_min for c in beyond)
    t_high = max(c.target_max for c in beyond)
    return Finding(
        code="TARGETS_OUTSIDE_OUTPUT_RANGE", severity="warning", where=beyond[0].loss,
        step=beyond[0].step,
        message=f"{beyond[0].loss}'s inputs never left [-1, 1] and were pressed against "
                f"{fmt(bound)} on every late recorded call, while its targets range from "
                f"{fmt(t_low)} to {fmt(t_high)} ({len(beyond)} of {len(calls)} calls): the "
                "output is bounded like a cosine similarity (a dot product of normalised "
                "vectors), and targets beyond the bound cannot be reached - every pair is "
                "pulled to the same similarity and the scores' order is lost.",
        evidence={"output_range": [-UNIT_BOUND, UNIT_BOUND], "bound_pressed": bound,
                  "target_min": t_low, "target_max": t_high, "calls_beyond": len(beyond),
                  "calls": len(calls), "bounded_by": "cosine-like output"},
        fix="Scale the targets into the similarity's range (STS scores 0-5: divide by 5; "
            "ratings 1-5: map to [-1, 1]) and undo it on predictions, or predict with an "
            "unnormalised head.")


@rule(produces="TARGETS_OUTSIDE_OUTPUT_RANGE",
      explains={"LOSS_PLATEAU", "SATURATED_ACTIVATIONS"})
def targets_outside_output_range(ctx):
    calls = judged_loss_calls(ctx, REGRESSION_LOSSES)
    last = _squashing_last_layer(ctx)
    if len(calls) < MIN_TARGET_CALLS:
        return None if last is None or calls else _handwritten_beyond(ctx, *last)
    if last is None:
        bounded = _unit_bounded_output(calls)
        return None if bounded is None else _unit_bounded_finding(calls, *bounded)
    name, kind, (low, high) = last
    inside = [c for c in calls if low - EXACT <= c.output_min and c.output_max <= high + EXACT]
    beyond = [c for c in inside if c.target_max > high + _margin(low, high, c) or
              c.target_min < low - _margin(low, high, c)]
    if len(inside) < len(calls) or len(beyond) < MAJORITY * len(calls) or not beyond:
        return None
    t_low = min(c.target_min for c in beyond)
    t_high = max(c.target_max for c in beyond)
    return Finding(
        code="TARGETS_OUTSIDE_OUTPUT_RANGE", severity="warning", where=name,
        step=beyond[0].step,
        message=f"The model ends in a {kind} ({name}), whose output lies in [{fmt(low)}, "
                f"{fmt(high)}], but {beyond[0].loss}'s targets range from {fmt(t_low)} to "
                f"{fmt(t_high)} ({len(beyond)} of {len(calls)} recorded calls): those targets "
                f"cannot be reached, the {kind} saturates at its bound trying, its gradient "
                "vanishes there, and the loss stays high.",
        evidence={"layer": name, "kind": kind, "output_range": [low, high],
                  "target_min": t_low, "target_max": t_high, "calls_beyond": len(beyond),
                  "calls": len(calls)},
        fix=f"Drop the final {kind}: a regression output needs no activation (the last "
            "linear layer outputs the targets' units)." if math.isinf(high) else
            f"Scale the targets into [{fmt(low)}, {fmt(high)}] (pixels 0-255: divide by "
            f"255) and undo the scaling on predictions, or drop the final {kind} and let "
            "the last linear layer output the targets' units.")


def _handwritten_beyond(ctx, name, kind, bounds):
    """TARGETS_OUTSIDE_OUTPUT_RANGE read from regression errors written by hand (real-bug
    cases: a 1-16-8-4-1 line fit to y = 10 x ending in tanh, a rating autoencoder whose
    sigmoid meets 1-5 stars, both with ``((out - y) ** 2).mean()``), or None. Only the
    largest magnitudes are kept of each side (``monitor/handwritten_errors.py``), so only a
    range bounded on both sides is judged: every prediction of one error (its index in the
    step) inside the bound, and most of its targets beyond it by the library rule's margin."""
    low, high = bounds
    if not math.isfinite(high - low):
        return None
    bound = max(abs(low), abs(high))
    reach = bound + BEYOND_SHARE * (high - low)
    by_index = {}
    for row in judged_handwritten_errors(ctx):
        by_index.setdefault(row[1], []).append(row)
    for index, rows in sorted(by_index.items()):
        beyond = [row for row in rows if row[4] > reach]
        if len(rows) < MIN_TARGET_CALLS or len(beyond) < MAJORITY * len(rows) or \
                any(row[3] > bound + EXACT for row in rows):
            continue
        largest = max(row[4] for row in beyond)
        return Finding(
            code="TARGETS_OUTSIDE_OUTPUT_RANGE", severity="warning", where=name,
            step=beyond[0][0],
            message=f"The model ends in a {kind} ({name}), whose output lies in [{fmt(low)}, "
                    f"{fmt(high)}], but the regression error written by hand in the loss "
                    f"compares it with targets as large as {fmt(largest)} in magnitude "
                    f"({len(beyond)} of {len(rows)} recorded steps): those targets cannot be "
                    f"reached, the {kind} saturates at its bound trying, its gradient "
                    "vanishes there, and the loss stays high.",
            evidence={"layer": name, "kind": kind, "output_range": [low, high],
                      "target_magnitude": largest, "steps_beyond": len(beyond),
                      "steps": len(rows), "loss": "written by hand"},
            fix=f"Scale the targets into [{fmt(low)}, {fmt(high)}] and undo the scaling on "
                f"predictions, or drop the final {kind} and let the last linear layer output "
                "the targets' units.")
    return None


@rule(produces="TARGETS_ALL_ONE_CLASS", explains={"LOSS_PLATEAU"})
def targets_all_one_class(ctx):
    calls = judged_loss_calls(ctx, CLASS_INDEX_LOSSES)
    if len(calls) < MIN_TARGET_CALLS:
        return None
    values = {c.target_min for c in calls} | {c.target_max for c in calls}
    if len(values) != 1 or not all(math.isfinite(v) for v in values):
        return None
    if positive_first_contrast(ctx, calls):
        return None            # InfoNCE: column 0 is each row's positive (contrastive_targets)
    value = values.pop()
    loss = calls[0].loss
    return Finding(
        code="TARGETS_ALL_ONE_CLASS", severity="warning", where=loss, step=calls[0].step,
        message=f"Every target {loss} got is {fmt(value)}, on all {len(calls)} recorded "
                "calls: the model can lower the loss to zero by always answering that one "
                "class, so a falling loss and a perfect accuracy say nothing about the "
                "inputs. The labels were most likely built wrong (a colour, a file name or "
                "a column that never matches the other classes).",
        evidence={"loss": loss, "target": value, "calls": len(calls)},
        fix="Count the labels your dataset returns (e.g. torch.bincount over one epoch) "
            "before training, and check how they are derived: an exact match on a colour "
            "or a string fails silently when the data holds a slightly different value.")


def _label_rows(ctx, losses):
    """(loss name, columns, rows, one-hot rows, multi-hot rows, most labels in a row) over
    the judged loss calls of one of ``losses`` whose targets were 0/1 labels of the output's
    2-D shape (``LossCall.label_rows``); None when fewer than MIN_ROWS rows were read, or
    when a call's float targets were not labels (probabilities, scores: ``label_rows`` 0)."""
    name, columns, counts = None, None, [0, 0, 0, 0]
    for call in judged_loss_calls(ctx, losses):
        if call.target_shape is None or len(call.target_shape) != 2 or \
                tuple(call.target_shape) != tuple(call.output_shape):
            continue
        if call.label_rows is None:
            continue           # not read (only the first calls' targets are)
        if call.label_rows == 0:
            return None        # soft labels or scores: not a labelling we can read
        name, columns = call.loss, call.output_shape[1]
        counts[0] += call.label_rows
        counts[1] += call.one_hot_rows
        counts[2] += call.multi_hot_rows
        counts[3] = max(counts[3], call.max_labels_in_row)
    if name is None or counts[0] < MIN_ROWS:
        return None
    return (name, columns, *counts)


@rule(produces="MULTI_LABEL_WITH_CROSS_ENTROPY", explains={"LOSS_PLATEAU"})
def multi_label_with_cross_entropy(ctx):
    found = _label_rows(ctx, SOFTMAX_LOSSES)
    if found is None:
        return _softmax_into_binary_loss(ctx)
    loss, columns, rows, _, multi, most = found
    several = multi / rows
    if several == 0:
        return None
    return Finding(
        code="MULTI_LABEL_WITH_CROSS_ENTROPY", severity="warning", where=loss, step=None,
        message=f"{loss} got multi-hot targets: {several:.0%} of {rows} target rows "
                f"carry several 1s (up to {most} of {columns}). It reads "
                "a float target as class probabilities without checking that a row sums to "
                "1, and its softmax makes labels that do not exclude each other compete for "
                "one unit of probability: a sample with k labels can give each at most 1/k, "
                "and the loss never reaches its floor.",
        evidence={"loss": loss, "rows": rows, "share_multi_label": several,
                  "max_labels_per_row": most, "columns": columns},
        fix="For labels that can occur together, use BCEWithLogitsLoss on the logits (one "
            "sigmoid per label) and threshold each probability at prediction time; keep "
            "CrossEntropyLoss for exactly one class per sample (class ids as targets).")


def _softmax_into_binary_loss(ctx):
    """The same competition one step earlier (real-bug batch 258, keras-team/keras#741): a
    binary cross-entropy whose inputs were softmax rows - non-negative, summing to 1 over
    the labels on every judged call (``LossCall.row_sum_error``) - while its multi-hot
    targets hold several 1s in a row. Each label gets its own yes/no loss, but the softmax
    before it still shares one unit of probability among them, so a sample with k labels
    can give each at most 1/k and never clears a 0.5 threshold on two at once."""
    found = _label_rows(ctx, BINARY_LOSSES)
    if found is None:
        return None
    loss, columns, rows, _, multi, most = found
    calls = [c for c in judged_loss_calls(ctx, BINARY_LOSSES)
             if c.target_shape is not None and len(c.target_shape) == 2]
    softmax_rows = [c for c in calls if c.row_sum_error is not None and
                    c.row_sum_error < ROW_SUM_TOLERANCE and c.output_min >= -EXACT]
    if multi == 0 or not calls or len(softmax_rows) < len(calls):
        return None
    return Finding(
        code="MULTI_LABEL_WITH_CROSS_ENTROPY", severity="warning", where=loss, step=None,
        message=f"{loss} got multi-hot targets ({multi / rows:.0%} of {rows} target rows "
                f"carry several 1s, up to {most} of {columns}), but its inputs were softmax "
                f"rows: on all {len(calls)} judged calls they summed to 1 over the labels. "
                "The labels do not exclude each other, yet the softmax makes them compete "
                "for one unit of probability: a sample with k labels can give each at most "
                "1/k, so two labels never pass 0.5 together.",
        evidence={"loss": loss, "rows": rows, "share_multi_label": multi / rows,
                  "max_labels_per_row": most, "columns": columns,
                  "softmax_inputs": True, "calls": len(calls)},
        fix="Replace the softmax at the output with one sigmoid per label - better, return "
            "the raw logits and use BCEWithLogitsLoss - and threshold each probability on "
            "its own at prediction time.")


@rule(produces="SINGLE_LABEL_WITH_BCE")
def single_label_with_bce(ctx):
    found = _label_rows(ctx, BINARY_LOSSES)
    if found is None:
        return None
    loss, columns, rows, one_hot, _, _ = found
    if columns < MIN_LABEL_COLUMNS or one_hot != rows:
        return None
    return Finding(
        code="SINGLE_LABEL_WITH_BCE", severity="warning", where=loss, step=None,
        message=f"{loss} got one-hot targets: every one of {rows} target rows has "
                f"exactly one 1 among {columns} columns, a single-label task. A binary "
                "cross-entropy treats each column as its own yes/no question: the classes no "
                "longer compete, a sample may come out as no class or as several, and the "
                "probabilities of a row do not sum to 1.",
        evidence={"loss": loss, "rows": rows, "columns": columns},
        fix="Use CrossEntropyLoss with the class ids (targets.argmax(dim=1), integers) as "
            "targets. A Hugging Face classifier picks BCE when its labels are floats: pass "
            "them as integers, or set problem_type='single_label_classification'.")
