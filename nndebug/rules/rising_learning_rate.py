"""LR_GROWS_DURING_TRAINING: the learning rate was still climbing over the second half of
the run and ended at its highest value.

Every schedule that trains well is flat or falling once its warm-up is over, and a
warm-up takes the first few percent of the run. A rate that keeps rising to the very end
is a schedule that does not match the run: a decay whose exponent has the wrong sign
(``gamma ** -k`` multiplies by ten where it should divide), or a warm-up built for more
steps than the run has (the total miscounted), which leaves the whole run at a fraction of
the peak rate. Read from the rates the records saw (``StepRecord.lrs``, the highest over
the groups); the records thin out as the run grows, so the rule compares the last record
with the last one at or before half of its step, and asks that no record in between saw
the rate fall. A rise alone is not enough (a warm-up of most of a short run rises through
its second half and then holds its peak between two thinned records), so the rate must
also have left its configured value behind: grown past it (the schedulers' base rate, or
the optimizer's rate when watching started where no scheduler was found), or, for a
scheduler, still be below its base rate when the run ended (a warm-up that never
finished). A run stopped on purpose inside its warm-up, or a learning-rate range test,
draws the same curve: the message says so.
"""
from ..findings import Finding
from .context import highest_rates, observed_list
from .graph import rule

LR_GROWTH = 1.5              # [design] the rate at the last record at least 1.5 x the rate at
                             # half of its step: a linear warm-up from zero doubles there, a
                             # step decay turned upside down multiplies by 10 per milestone
MIN_RISING_RECORDS = 2       # [design] records from the half-way one to the last
NEVER_FELL = 1e-9            # [design] relative tolerance of "did not fall" (float rounding)
UNFINISHED = 0.01            # [design] a scheduler that ended 1% or more below its base rate
                             # has not finished its warm-up (a finished one sits at the base)


def configured_rate(ctx):
    """(the configured rate, the schedulers' rate when the run ended or None): the highest
    base rate of the observed schedulers, else the optimizer's highest rate when watching
    started; (None, None) when neither is known."""
    states = [s for s in observed_list(ctx, "schedulers") if s.base_lrs and s.lrs]
    if states:
        return (max(max(s.base_lrs) for s in states),
                max(max(s.lrs) for s in states))
    rates = [s.lr for s in observed_list(ctx, "optimizer_settings") if s.lr is not None]
    return (max(rates), None) if rates else (None, None)


def left_configured_rate(last_rate, configured, scheduler_end):
    """Whether the rate grew LR_GROWTH x past the configured one, or a scheduler ended the run
    still below its base rate (its warm-up never finished)."""
    if configured is None or not configured > 0:
        return False
    if max(last_rate, scheduler_end or 0.0) >= LR_GROWTH * configured:
        return True
    return scheduler_end is not None and scheduler_end < configured * (1 - UNFINISHED)


def rising_stretch(rates):
    """(rate half-way, rate at the end, step half-way, last step) when the rate never fell
    from the last record at or before half the last record's step to the end, and grew by
    LR_GROWTH or more; else None."""
    if len(rates) < MIN_RISING_RECORDS:
        return None
    last_step, last_rate = rates[-1]
    earlier = [i for i, (step, _) in enumerate(rates) if step <= last_step / 2]
    if not earlier or not last_rate > 0:
        return None
    start = earlier[-1]
    stretch = rates[start:]
    if len(stretch) < MIN_RISING_RECORDS:
        return None
    if any(b < a * (1 - NEVER_FELL) for (_, a), (_, b) in zip(stretch, stretch[1:])):
        return None
    if last_rate < max(rate for _, rate in rates) * (1 - NEVER_FELL):
        return None                  # higher earlier in the run: a restart, not a rise
    half_step, half_rate = stretch[0]
    if not half_rate > 0 or last_rate < LR_GROWTH * half_rate:
        return None
    return half_rate, last_rate, half_step, last_step


@rule(produces="LR_GROWS_DURING_TRAINING",
      explains={"LOSS_DIVERGING", "LOSS_OSCILLATING", "LR_TOO_HIGH", "LR_TOO_LOW",
                "EXPLODING_GRADIENTS", "EXPLODING_ACTIVATIONS", "LOSS_PLATEAU"})
def lr_grows_during_training(ctx):
    found = rising_stretch(highest_rates(ctx))
    if found is None:
        return None
    half_rate, last_rate, half_step, last_step = found
    configured, scheduler_end = configured_rate(ctx)
    if not left_configured_rate(last_rate, configured, scheduler_end):
        return None
    top = max(last_rate, scheduler_end or 0.0)
    why = (f"it ended {top / configured:.3g} x above the configured rate {configured:.3g}"
           if top >= LR_GROWTH * configured else
           f"the scheduler ended the run at {scheduler_end:.3g}, still below its base rate "
           f"{configured:.3g}")
    return Finding(
        code="LR_GROWS_DURING_TRAINING", severity="warning", step=last_step,
        message=f"The learning rate rose from {half_rate:.3g} at step {half_step} to "
                f"{last_rate:.3g} at step {last_step} ({last_rate / half_rate:.3g} x) and "
                f"never fell in between, and {why}: it was still climbing at the end of "
                "the run. A "
                "schedule that trains is flat or falling after a short warm-up; this one "
                "either grows where it should decay (an exponent with the wrong sign, a "
                "factor above 1) or warms up over more steps than the run has. (A run "
                "stopped inside its warm-up on purpose, or a learning-rate range test, draws "
                "the same curve.)",
        evidence={"lr_half_way": half_rate, "lr_at_end": last_rate, "step_half_way":
                  half_step, "last_step": last_step, "growth": last_rate / half_rate,
                  "configured_lr": configured, "scheduler_final_lr": scheduler_end,
                  "threshold": LR_GROWTH},
        fix="Print the rate the schedule gives at a few steps before training: a decay "
            "multiplies by gamma < 1 (gamma ** k, not gamma ** -k); a warm-up's length and "
            "the schedule's total must be counted in the optimizer steps the run really "
            "takes (epochs x batches per epoch, not divided by the batch size again).")
