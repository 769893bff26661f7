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

A rate above zero can still climb when the update rule is written by hand with a sign wrong
(real-bug batch 322: Nesterov's look-ahead term added, ``w - lr * g + lr * mu * v``, so from
the second step the velocity outweighs the gradient and each step goes up it; Paddle PR
12231). ``run.observed.update_fits`` (``monitor/update_samples.py``, hand-written optimizers
only) keeps, per followed weight, the share of the first optimizer steps whose sampled update
points along the gradient. Descent never does on SGD, Adam, RMSprop or Adagrad (their
per-entry scale is positive) and heavy-ball momentum seldom does while the loss falls: 0 to
6% on the fixed twins of the 13 hand-written optimizers of the real-bug benchmark, 94-98% on
the bugs that climb. Every followed weight must show it: an optimizer applies one rule to all.
"""
from ..findings import Finding
from .context import observed_list, short_list
from .graph import rule
from .update_fit_readers import MIN_FITTED_STEPS, SAME_RULE_SHARE, update_fit_rows


@rule(produces="NEGATIVE_LEARNING_RATE",
      explains={"LR_AT_ZERO", "LR_TOO_LOW", "LR_TOO_HIGH", "LOSS_DIVERGING", "LOSS_OSCILLATING",
                "EXPLODING_GRADIENTS", "LOSS_PLATEAU", "LOSS_AT_CHANCE", "PARAMS_NOT_UPDATING"})
def negative_learning_rate(ctx):
    below = sorted([tuple(row) for row in observed_list(ctx, "negative_rates")] +
                   [(r.step, group, rate) for r in ctx.run.records if r.lrs
                    for group, rate in enumerate(r.lrs) if rate < 0])
    if not below:
        return _updates_climb(ctx)
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


def _updates_climb(ctx):
    """NEGATIVE_LEARNING_RATE from a hand-written update rule that climbs the gradient on
    SAME_RULE_SHARE of at least MIN_FITTED_STEPS compared steps, on every followed weight."""
    rows = [row for row in update_fit_rows(ctx) if len(row) > 10]
    if not rows or any(row[9] < MIN_FITTED_STEPS or row[10] < SAME_RULE_SHARE for row in rows):
        return None
    share = min(row[10] for row in rows)
    steps = min(row[9] for row in rows)
    names = [row[0] for row in rows]
    return Finding(
        code="NEGATIVE_LEARNING_RATE", severity="error", where=", ".join(names),
        message=f"On {share:.0%} of the first {steps} optimizer steps, each update of "
                f"{short_list(names)} points along the gradient, not against it: the "
                "hand-written update rule climbs the loss (a learning rate below zero in "
                "effect, though the rate itself is positive). A sign is wrong in the step, "
                "e.g. a momentum term added where it should be subtracted.",
        evidence={"parameters": names, "climbing_share": share, "steps_compared": steps,
                  "threshold": SAME_RULE_SHARE},
        fix="Write the step as w -= lr * direction, where direction is the gradient or a "
            "positive multiple of it entry by entry (momentum: lr * (g + mu * v) for "
            "Nesterov); or use torch.optim's own optimizer.")
