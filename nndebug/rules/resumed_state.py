"""A run resumed from a checkpoint (``mon.load_state_dict``) without the optimizer's or the
scheduler's state: OPTIMIZER_STATE_NOT_RESTORED, SCHEDULER_RESTARTED_ON_RESUME.

Optimizer: a resume that builds the optimizer again after loading its state
(OpenNMT/OpenNMT-py#617: "creates an entirely new optimizer and erases the previously loaded
optimizer state"), or never loads it, continues a trained model under zero moments: Adam's
first bias-corrected steps move every weight by about the full learning rate whatever its
gradient, and a job resumed often loses its moments every time. Read from
``run.observed.resumed_optimizers`` (``monitor/resumed_optimizers.py``): the first optimizer
step after the resume held no per-parameter state before it and some after it (a stateless
optimizer, plain SGD, has nothing to lose and is not named).

Scheduler: a scheduler built anew and not loaded (lightly-ai/lightly-train#301: "`last_epoch`
is always equal to -1 when resumed from checkpoints") runs its warm-up again on the trained
model and spreads its decay over the whole planned length from the resume on, so training
ends at a larger rate than planned. Read from the same rows: the schedulers driving the
optimizer at its first step after the resume and the steps each had counted
(``monitor/schedulers.py``). A scheduler loaded from the checkpoint has counted the steps
(or epochs) before the resume; one that has counted none was built anew. ``ReduceLROnPlateau``
keeps its rate in the optimizer's state, restored with it, and is not judged. Blind spot: a
scheduler stepped per epoch and resumed, loaded, inside its first epoch has counted none
either and would be named (MIN_STEPS_BEFORE_RESUME keeps only the earliest resumes out).
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

MIN_STEPS_BEFORE_RESUME = 10   # [design] steps trained before the resume: state worth keeping
STATELESS_SCHEDULERS = ("ReduceLROnPlateau",)   # [convention] its rate lives in the
                                                # optimizer's state, restored with it


def resumes(ctx):
    """The resumes worth judging: (step resumed at, optimizer class, state before, after,
    [[scheduler class, steps counted]])."""
    return [row for row in observed_list(ctx, "resumed_optimizers")
            if row[0] >= MIN_STEPS_BEFORE_RESUME]


@rule(produces="OPTIMIZER_STATE_NOT_RESTORED")
def optimizer_state_not_restored(ctx):
    """OPTIMIZER_STATE_NOT_RESTORED: a run resumed from a checkpoint with fresh optimizer state
    (Adam's moments at zero) where the saved state was meant."""
    empty = [(step, kind) for step, kind, before, after, _ in resumes(ctx) if after and not before]
    if not empty:
        return None
    step, kind = empty[-1]
    return Finding(
        code="OPTIMIZER_STATE_NOT_RESTORED", severity="warning", where=kind, step=int(step),
        message=f"The run resumed at step {step} from a checkpoint, but the {kind} optimizer "
                "held no state when it took its first step after the resume (no moment "
                "estimates, no momentum buffers, a step count back at zero): the state "
                "gathered over the steps before was not restored, or was thrown away by "
                "building the optimizer again after loading it. A trained model is stepped "
                "as if training had just begun (Adam moves every weight by about the full "
                "learning rate on its first steps).",
        evidence={"resumed_at": int(step), "optimizer": kind},
        fix="Save optimizer.state_dict() in the checkpoint and call optimizer.load_state_dict("
            "checkpoint['optimizer']) on the optimizer that will step, after building it "
            "(never build it again after loading).")


@rule(produces="SCHEDULER_RESTARTED_ON_RESUME")
def scheduler_restarted_on_resume(ctx):
    """SCHEDULER_RESTARTED_ON_RESUME: a run resumed from a checkpoint whose learning-rate schedule
    starts again from its first step."""
    for at, _, _, _, schedulers in resumes(ctx):
        for kind, calls in schedulers:
            if kind in STATELESS_SCHEDULERS or calls > 0:
                continue
            return Finding(
                code="SCHEDULER_RESTARTED_ON_RESUME", severity="warning", where=kind,
                step=int(at),
                message=f"The run resumed at step {at} from a checkpoint, but its {kind} had "
                        "counted no step when training went on: it was built anew and its "
                        "state not loaded, so the schedule starts again from step zero. Its "
                        "warm-up runs again on a trained model and its decay is spread over "
                        "the whole planned length from the resume on, so training ends at a "
                        "larger rate than planned.",
                evidence={"resumed_at": int(at), "scheduler": kind, "scheduler_steps": 0},
                fix="Save scheduler.state_dict() in the checkpoint and call "
                    "scheduler.load_state_dict(checkpoint['scheduler']) on resume (or build "
                    "it with last_epoch set to the steps already taken).")
    return None
