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
"""
from ..findings import Finding
from .context import REGRESSION_LOSSES, fmt, judged_handwritten_errors, judged_loss_calls
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
                f"{fmt(end_targets)})." + (
                    f" It is summed with errors whose targets reach only {fmt(beside)}: "
                    "in raw units it outweighs them, and what they train starves."
                    if swamps else ""),
        evidence={"target_magnitude": targets, "output_magnitude": outputs,
                  "other_errors_target_magnitude": beside,
                  "end_target_magnitude": end_targets, "end_output_magnitude": end_outputs,
                  "loss": loss},
        fix="Standardise the targets with the training set's mean and std (or the input "
            "window's own, for a per-window normaliser) and undo it on the predictions; at "
            "the least, initialise the last layer's bias to the targets' mean.")


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
