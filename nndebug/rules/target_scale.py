"""TARGETS_UNSCALED: a regression trained on targets in raw units, hundreds or more times
larger than what the freshly initialised network outputs.

A network with the default initialisation outputs numbers of order one. Targets of order a
hundred (prices, counts, sales levels) or far more make the first losses enormous, and the
network spends its steps growing the scale of its last layer instead of learning the
relation: the loss falls, slowly, while every prediction is still a fraction of the
target. Standardising the targets (and undoing it on the predictions) removes the
problem. Public reports: "[BUG] `y` not being normalized when using `EncoderNormalizer` in
`EncoderDecoderDataModule`", https://github.com/sktime/pytorch-forecasting/issues/2360 (the
encoder window normalised, the target left raw: "target_past (normalized) -> min -1.525 max
1.525, y -> min 220.000 max 270.000"); "Why do I fail to predict y=x**4 with keras? (y=x**3
works)", https://stackoverflow.com/questions/52800582 ("the outputs are in the range of
[-1e8, 1e8]").

Read from what reached a regression loss (``run.observed.loss_calls``: the output's and
the target's min and max on recorded steps), or, when no torch regression loss was called,
from the regression errors written by hand (``run.observed.handwritten_errors``:
``((prediction - target) ** 2)[mask].mean()``, each error's largest prediction and target
magnitude; real-bug batch 126, a TTS pitch head regressed on raw hertz beside its mel and
duration errors). A run whose last layer starts at the targets'
scale (its bias set to their mean, a fixed output scale) is not judged: its first outputs
are not small against the targets. A network that has grown into the targets' scale by its
last recorded call is named as info only.

A squared error summed after another loss (``cross_entropy(digit) + mse_loss(ink, raw_ink)``:
a multi-task head; ``run.observed.summed_errors``, real-bug batch 281, "why not normalize
the loss of regression?", https://github.com/yuanwei1989/landmark-detection/issues/2) is
read the same way when the step's first loss is no regression: its raw-unit errors outweigh
a classification loss of order one, so the shared layers learn the regression alone and the
other head stays at chance although the summed loss falls.
"""
from ..findings import Finding
from .context import (CLASS_INDEX_LOSSES, REGRESSION_LOSSES, fmt, judged_handwritten_errors,
                      judged_loss_calls, judged_step_rows, observed_list)
from .curve import learning_poor
from .graph import rule

TARGET_MAGNITUDE = 50.0     # [design] the targets' largest magnitude at the first call:
                            # standardised targets stay within about 5, targets scaled to
                            # [0, 1] within 1; raw prices, counts and levels reach hundreds
TARGET_OUTPUT_RATIO = 50.0  # [torchinit] targets this many times the first outputs' largest
                            # magnitude (at least 1): a default-initialised network outputs
                            # values of order one (0.1-1 for PyTorch's default Linear init)
OUTPUTS_CAUGHT_UP = 0.25    # [design] outputs reaching this share of the targets' magnitude
                            # at the last call: the network grew into the scale (info)


def _magnitude(low, high):
    return max(abs(low), abs(high))


@rule(produces="TARGETS_UNSCALED", explains={"LOSS_PLATEAU", "EXPLODING_GRADIENTS"})
def targets_unscaled(ctx):
    calls = judged_loss_calls(ctx, REGRESSION_LOSSES)
    if calls:
        first, last = calls[0], calls[-1]
        seen = [(int(first.step), _magnitude(first.output_min, first.output_max),
                 _magnitude(first.target_min, first.target_max), first.loss),
                (int(last.step), _magnitude(last.output_min, last.output_max),
                 _magnitude(last.target_min, last.target_max), last.loss)]
        beside = None
    else:
        seen, beside = _handwritten_unscaled(ctx)
        if seen is None:
            seen, beside = _summed_unscaled(ctx)
    if seen is None:
        return None
    (step, outputs, targets, loss), (_, end_outputs, end_targets, _) = seen
    if not (targets >= TARGET_MAGNITUDE and targets >= TARGET_OUTPUT_RATIO * max(outputs, 1.0)):
        return None                          # (NaN compares False: not judged)
    # summed with errors of targets in unit scale, a squared error in raw units outweighs
    # them even once its head has grown into the scale: the other heads starve (a TTS
    # pitch error in hertz beside mel and duration errors: mel MSE 0.075 against 0.015)
    swamps = beside is not None and targets >= TARGET_OUTPUT_RATIO * max(beside, 1.0)
    caught_up = seen[0][0] != seen[1][0] and end_outputs >= OUTPUTS_CAUGHT_UP * end_targets \
        and not learning_poor(ctx) and not swamps
    return Finding(
        code="TARGETS_UNSCALED", severity="info" if caught_up else "warning",
        step=step,
        message=f"The regression targets reach {fmt(targets)} while the freshly initialised "
                f"network outputs at most {fmt(outputs)} ({loss}): the targets are in "
                "raw units, so the first losses are huge and the network spends its steps "
                "growing its output scale instead of learning the relation (at the last "
                f"recorded step its outputs reach {fmt(end_outputs)} against targets of "
                f"{fmt(end_targets)})." + (_swamped(loss, beside) if swamps else ""),
        evidence={"target_magnitude": targets, "output_magnitude": outputs,
                  "other_errors_target_magnitude": beside,
                  "end_target_magnitude": end_targets, "end_output_magnitude": end_outputs,
                  "loss": loss},
        fix="Standardise the targets with the training set's mean and std (or the input "
            "window's own, for a per-window normaliser) and undo it on the predictions; at "
            "the least, initialise the last layer's bias to the targets' mean.")


def _swamped(loss, beside):
    """What the other terms of the summed loss lose, in the message's words."""
    if SUMMED_AFTER in loss:
        return (f" Its sum with {loss.split(SUMMED_AFTER)[1]}, a loss of order one, is almost "
                "all squared error: the layers the heads share learn the regression alone, "
                "and the other head starves.")
    return (f" It is summed with errors whose targets reach only {fmt(beside)}: in raw units "
            "it outweighs them, and what they train starves.")


def _handwritten_unscaled(ctx):
    """(the first and last judged rows, as (step, prediction magnitude, target magnitude,
    "squared error written by hand"), of the hand-written error whose first target is the
    largest; the largest target magnitude of the step's other hand-written errors), each
    None without one."""
    rows = judged_handwritten_errors(ctx)
    if not rows:
        return None, None
    first = [row for row in rows if row[0] == rows[0][0]]
    index = max(first, key=lambda row: row[4])[1]
    others = [row[4] for row in first if row[1] != index]
    own = [row for row in rows if row[1] == index]
    name = f"{own[0][2]} error written by hand"
    return ([(row[0], row[3], row[4], name) for row in (own[0], own[-1])],
            max(others) if others else None)


# the loss a squared error is summed with, when that loss is of order one whatever the
# targets' units: log-probabilities of class ids and of binary labels
ORDER_ONE_LOSSES = CLASS_INDEX_LOSSES | {"BCEWithLogitsLoss", "binary_cross_entropy_with_logits",
                                         "BCELoss", "binary_cross_entropy"}
SQUARED_ERROR_NODE = "MseLossBackward0"   # [torch] the graph node of mse_loss / MSELoss
SUMMED_AFTER = " summed after "            # how such an error is named in the finding


def _summed_unscaled(ctx):
    """Like ``_handwritten_unscaled``, of the squared errors a step summed after a first loss
    of order one (``run.observed.summed_errors``): the first and last rows of the one whose
    first target is the largest; beside, 1 - the order of the classification loss. Not read
    when the loss's graph multiplies a squared error by a constant (``loss_reductions``: a
    weight whose value the graph no longer holds at ``step()``; an error weighted by 1e-4 is
    meant to be small)."""
    rows = [row for row in judged_step_rows(ctx, "summed_errors") if row[4] in ORDER_ONE_LOSSES]
    if not rows or _squared_error_weighted(ctx):
        return None, None
    first = max((row for row in rows if row[0] == rows[0][0]), key=lambda row: row[3])
    own = [row for row in rows if row[1] == first[1]]
    name = f"{first[1]}{SUMMED_AFTER}{first[4]}"
    return ([(row[0], row[2], row[3], name) for row in (own[0], own[-1])], 1.0)


def _squared_error_weighted(ctx):
    """Whether a squared error of the loss's graph, on the first recorded steps, was scaled
    by anything but a sign or an addition's ``alpha`` of 1 (scale None or not 1)."""
    return any(operation == SQUARED_ERROR_NODE and scale != 1.0
               for _, addends in observed_list(ctx, "loss_reductions")
               for operation, _, scale, _ in addends)
