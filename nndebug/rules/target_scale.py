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
the target's min and max on recorded steps). A run whose last layer starts at the targets'
scale (its bias set to their mean, a fixed output scale) is not judged: its first outputs
are not small against the targets. A network that has grown into the targets' scale by its
last recorded call is named as info only.
"""
from ..findings import Finding
from .context import fmt, judged_loss_calls
from .curve import learning_poor
from .graph import rule

REGRESSION_LOSSES = {"MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "mse_loss", "l1_loss",
                     "smooth_l1_loss", "huber_loss"}
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
    if not calls:
        return None
    first, last = calls[0], calls[-1]
    targets = _magnitude(first.target_min, first.target_max)
    outputs = _magnitude(first.output_min, first.output_max)
    if not (targets >= TARGET_MAGNITUDE and targets >= TARGET_OUTPUT_RATIO * max(outputs, 1.0)):
        return None                          # (NaN compares False: not judged)
    end_targets = _magnitude(last.target_min, last.target_max)
    end_outputs = _magnitude(last.output_min, last.output_max)
    caught_up = len(calls) > 1 and end_outputs >= OUTPUTS_CAUGHT_UP * end_targets \
        and not learning_poor(ctx)
    return Finding(
        code="TARGETS_UNSCALED", severity="info" if caught_up else "warning",
        step=int(first.step),
        message=f"The regression targets reach {fmt(targets)} while the freshly initialised "
                f"network outputs at most {fmt(outputs)} ({first.loss}): the targets are in "
                "raw units, so the first losses are huge and the network spends its steps "
                "growing its output scale instead of learning the relation (at the last "
                f"recorded step its outputs reach {fmt(end_outputs)} against targets of "
                f"{fmt(end_targets)}).",
        evidence={"target_magnitude": targets, "output_magnitude": outputs,
                  "end_target_magnitude": end_targets, "end_output_magnitude": end_outputs,
                  "loss": first.loss},
        fix="Standardise the targets with the training set's mean and std (or the input "
            "window's own, for a per-window normaliser) and undo it on the predictions; at "
            "the least, initialise the last layer's bias to the targets' mean.")
