"""BACKWARD_AFTER_OPTIMIZER_STEP and OPTIMIZER_PARAMS_NEVER_ZEROED: gradients that no update
uses as the loop meant (``run.observed.late_gradients`` and ``uncleared_gradients``,
``monitor/late_gradients.py``).

BACKWARD_AFTER_OPTIMIZER_STEP: some of the optimizer's parameters have no gradient when it
steps, and hold one when the recorded step closes. Between the two only the loop's own code
runs, and only a backward fills a None ``.grad``: a loss backpropagated after
``optimizer.step()`` (or a step written before the backward). The next ``zero_grad()`` wipes
it, so whatever only that loss reaches never trains. A GAN's other turn does not look like
this: the parameters it reaches already hold their own gradient at their step.

OPTIMIZER_PARAMS_NEVER_ZEROED: a parameter the optimizer holds outside the model (a loss
module's, a hand-made tensor) has more in ``.grad`` at the step than the step's backward
passes delivered, on several steps: ``model.zero_grad()`` clears the model only, so those
gradients sum over the whole run and each update repeats all earlier ones.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

LATE_MIN_STEPS = 2           # [design] measured steps that must show it: the loop's order is
                             # the same on every step, and one step can be a loop's first
UNCLEARED_RATIO = 0.5        # [design] |.grad - delivered| above half of |delivered|: more
                             # than float rounding (~1e-7) or a clip's rescaling of one step
UNCLEARED_MIN_STEPS = 2      # [design] steps that must show it: the first watched step may
                             # hold gradients from before watch()


@rule(produces="BACKWARD_AFTER_OPTIMIZER_STEP", explains={"PARAMS_NOT_UPDATING"})
def backward_after_optimizer_step(ctx):
    rows = observed_list(ctx, "late_gradients")
    late = [row for row in rows if row[2] > 0]
    if len(late) < LATE_MIN_STEPS or len(late) * 2 <= len(rows):
        return None
    step, empty, filled, names = late[0]
    return Finding(
        code="BACKWARD_AFTER_OPTIMIZER_STEP", severity="warning", step=step,
        message=f"{filled} parameter tensor(s) the optimizer holds ({', '.join(names)}) had no "
                f"gradient when optimizer.step() ran and held one before watch's step() "
                f"closed the step, on {len(late)} of {len(rows)} measured steps: a backward "
                "ran after the optimizer's step. What it delivers is wiped by the next "
                "zero_grad() before any step reads it, so the loss it came from trains "
                "nothing (the parameters only it reaches never move).",
        evidence={"steps": [row[0] for row in late], "parameters_filled_late":
                  [row[2] for row in late], "without_gradient_at_step": [row[1] for row in late],
                  "names": names, "min_steps": LATE_MIN_STEPS},
        fix="Call every loss's backward() (or one backward of their sum) before "
            "optimizer.step(): zero_grad(), forward, backward, step.")


@rule(produces="OPTIMIZER_PARAMS_NEVER_ZEROED",
      explains={"LOSS_DIVERGING", "LOSS_OSCILLATING", "NAN_LOSS"})
def optimizer_params_never_zeroed(ctx):
    rows = observed_list(ctx, "uncleared_gradients")
    carried = [row for row in rows if row[2] > UNCLEARED_RATIO]
    steps = sorted({row[0] for row in carried})
    if len(steps) < UNCLEARED_MIN_STEPS:
        return None
    names = list(dict.fromkeys(row[1] for row in carried))
    return Finding(
        code="OPTIMIZER_PARAMS_NEVER_ZEROED", severity="error", step=steps[0],
        message=f"The optimizer steps parameters outside the model ({', '.join(names[:4])}) "
                f"whose .grad held more than the step's backward delivered (|.grad - "
                f"delivered| = {max(row[2] for row in carried):.3g} x |delivered|) on "
                f"{len(steps)} steps: nothing clears their gradients (model.zero_grad() "
                "clears the model's only), so every update also repeats all earlier ones.",
        evidence={"steps": steps, "parameters": names,
                  "excess_over_delivered": [round(row[2], 3) for row in carried][:20],
                  "threshold": UNCLEARED_RATIO},
        fix="Call optimizer.zero_grad(), which clears every parameter the optimizer steps "
            "(or also zero the loss module's: criterion.zero_grad()).")
