"""A learning rate below zero (real-bug batch 123): every step then climbs the loss instead
of descending it. torch's optimizers refuse a negative rate when they are built, but not one
written into ``param_groups`` later, which is how hand-made schedules set their rate; a decay
written as "subtract a fixed amount each epoch" (gensim's word2vec, alpha -= 0.001 per
call of train(): https://stackoverflow.com/questions/62801052) crosses zero once the epochs
outnumber rate / decrement, and the run ends in gradient ascent while its loss climbs.

The optimizer's step hook notes the first step taken with a group's rate below zero
(``run.observed.negative_rates``: the judged records thin out, and the word2vec schedule
crosses zero at step 260 of 400, between the records at 256 and the end); the records add
each group's rate at their step (``StepRecord.lrs``). One such step is enough: no schedule
of a descent goes there on purpose (to maximise an objective, negate the loss and keep the
rate positive).
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule


@rule(produces="NEGATIVE_LEARNING_RATE",
      explains={"LR_AT_ZERO", "LR_TOO_LOW", "LR_TOO_HIGH", "LOSS_DIVERGING", "LOSS_OSCILLATING",
                "EXPLODING_GRADIENTS", "LOSS_PLATEAU", "LOSS_AT_CHANCE", "PARAMS_NOT_UPDATING"})
def negative_learning_rate(ctx):
    below = sorted([tuple(row) for row in observed_list(ctx, "negative_rates")] +
                   [(r.step, group, rate) for r in ctx.run.records if r.lrs
                    for group, rate in enumerate(r.lrs) if rate < 0])
    if not below:
        return None
    step, group, rate = below[0]
    lowest = min(rate for _, _, rate in below)
    n_steps = getattr(ctx.run, "n_steps", 0) or 0
    return Finding(
        code="NEGATIVE_LEARNING_RATE", severity="warning", step=step,
        message=f"The learning rate of param group {group} was {rate:.3g} at step {step} of "
                f"{n_steps}, below zero (the lowest seen: {lowest:.3g}): each step there moves "
                "the weights up the gradient, climbing the loss it should descend. A schedule "
                "that subtracts a fixed amount per epoch crosses zero once the epochs "
                "outnumber rate / decrement.",
        evidence={"first_negative_step": step, "group": group, "rate": rate,
                  "lowest_rate": lowest, "n_steps": n_steps},
        fix="Keep the rate at or above a floor: decay it multiplicatively, or linearly from "
            "the start rate to a minimum over the number of steps the run really takes "
            "(torch.optim.lr_scheduler.LinearLR / CosineAnnealingLR); to maximise an "
            "objective, negate the loss instead of the rate.")
