"""VALIDATION_TEACHER_FORCED: the validation forecast was handed the ground truth it
forecasts, read one step behind (teacher forcing), so the validation loss measures
one-step-ahead prediction with the true past given at every step, not the multi-step
forecast the model has to make on its own.

Teacher forcing is how a sequence-to-sequence forecaster is trained; validated the same way,
its validation loss stays a small fraction of what its real, autoregressive forecast
achieves, and early stopping and model choice follow a number no deployment can reach.
Public report: "Prediction not autoregressive?", https://github.com/quancore/social-lstm/
issues/2 ("During sampling of future trajectories, it seems like the the ground truth is
fed back into the network, not the predicted point"; the author: "For the validation
sampling, yes this is the case. I was using the ground truth for prediction").

Read from ``run.observed.validation_teacher_inputs`` (``monitor/teacher_forced_validation
.py``): a validation forward received, besides its data, a float sequence of the output's
own shape that it reads causally (a change at one position leaves every earlier output
exactly as it was and moves later ones) and that the output reproduces (mean squared
difference at most TEACHER_MATCH of the sequence's variance) at a position it has not read:
its own position when the output there did not move (the truth read one step late), or the
next one, matched better than its own (the targets shifted right). A known future (a
calendar, a weather forecast) is read at its own step and matched best there; a call with
the targets passed and teacher forcing switched off moves no later output.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

TEACHER_MATCH = 0.5          # [design] mean squared difference between the forecast and the
                             # argument, over the argument's variance: a teacher-forced
                             # forecaster reproduces its teacher closely (0.002 on the planted
                             # case after 50 steps); covariates of another quantity give ~1+


def teacher_forced(rows):
    """(step, argument, shape, shift, error) of the first validation forward read as
    teacher-forced, or None. Shift 0: the output reproduces the argument at positions it
    has not read yet; shift 1: it reproduces the argument's next position."""
    for row in rows:
        step, place, shape, same, following, earlier_unchanged, own_moved, later_moved = row
        if not (earlier_unchanged and later_moved):
            continue
        if not own_moved and same <= TEACHER_MATCH and same <= following:
            return step, place, shape, 0, same
        if following <= TEACHER_MATCH and following < same:
            return step, place, shape, 1, following
    return None


@rule(produces="VALIDATION_TEACHER_FORCED")
def validation_teacher_forced(ctx):
    found = teacher_forced(observed_list(ctx, "validation_teacher_inputs"))
    if found is None:
        return None
    step, place, shape, shift, error = found
    shape_text = "x".join(str(n) for n in shape)
    return Finding(
        code="VALIDATION_TEACHER_FORCED", severity="warning", where="validation", step=step,
        message=f"The validation forward at step {step} was handed ({place}, shape "
                f"{shape_text}) the sequence it forecasts: its output reproduces it "
                f"({'one step on' if shift else 'position by position'}, mean squared "
                f"difference {error:.2g} of its variance) and reads it causally (a change at "
                "one position moves later outputs only) - the decoder was teacher-forced at "
                "validation. The validation loss then measures one-step-ahead prediction "
                "with the true past given at every step, not the multi-step forecast the "
                "model makes alone, and flatters it.",
        evidence={"step": step, "argument": place, "shape": list(shape), "shift": shift,
                  "reproduction_error": error},
        fix="At validation, roll the decoder out on its own predictions: call the model "
            "without the targets (or with teacher_forcing_ratio=0), as at inference; keep "
            "teacher forcing for training.")
