"""GROUP_RATES_OVERWRITTEN: param groups built with different learning rates all train at
one rate, because a scheduler writes the same rate into every group.

A model split into param groups at different rates (a body slower than a new head,
discriminative fine-tuning) relies on the scheduler to scale each group's OWN base rate:
torch's schedulers all do (``base_lrs``, one per group). A hand-written scheduler whose
``get_lr`` returns one value per group computed from a single rate (``[self.final_lr *
warmup() for g in self.optimizer.param_groups]``) overwrites every group with it from its
first step: the slow group runs at the fast group's rate, or the reverse, and nothing fails
(microsoft/hi-ml#611, "LR scheduler issue with multiple parameter groups").

Read from the scheduler (``run.observed.schedulers``: each group's base rate, the
``initial_lr`` the scheduler recorded when built, and its rate when read) and the records'
rates (``StepRecord.lrs``): the base rates differ by GROUP_RATE_SPREAD or more, all of them
above zero, and every group holds the same rate - at the end and at GROUP_RECORDS or more
recorded steps. A torch scheduler keeps the groups' ratio (silent); groups built at one
rate have nothing to overwrite (silent); a group built at rate zero (frozen, to be ramped up
by its own lambda) is left out.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

GROUP_RATE_SPREAD = 2.0      # [design] base rates at least 2x apart: groups meant to differ
SAME_GROUP_RATE = 1e-3       # [design] rates equal to a part in a thousand: one rate written
                             # into every group (the base ratio kept would differ by 2x+)
GROUP_RECORDS = 2            # [design] recorded steps on which all groups held one rate: not a
                             # coincidence of the last read


def _one_rate(rates):
    rates = [float(r) for r in rates]
    if len(rates) < 2 or not min(rates) > 0:
        return False
    return max(rates) - min(rates) <= SAME_GROUP_RATE * max(rates)


@rule(produces="GROUP_RATES_OVERWRITTEN",
      explains={"LR_TOO_HIGH", "LR_TOO_LOW", "DEAD_RELU", "LOSS_PLATEAU", "LOSS_OSCILLATING",
                "EXPLODING_GRADIENTS"})
def group_rates_overwritten(ctx):
    for state in observed_list(ctx, "schedulers"):
        base = [float(b) for b in (state.base_lrs or ())]
        if len(base) < 2 or len(state.lrs or ()) != len(base) or not min(base) > 0:
            continue
        if max(base) < GROUP_RATE_SPREAD * min(base) or not _one_rate(state.lrs):
            continue
        same = [r.step for r in ctx.run.records if len(r.lrs or ()) == len(base)
                and _one_rate(r.lrs)]
        if len(same) < GROUP_RECORDS:
            continue
        slow, fast = min(base), max(base)
        rate = max(state.lrs)
        return Finding(
            code="GROUP_RATES_OVERWRITTEN", severity="warning", where="optimizer",
            step=same[0],
            message=f"The {state.type} was built over {len(base)} param groups whose rates "
                    f"differ {fast / slow:.3g}x (from {slow:.3g} to {fast:.3g}), yet every "
                    f"group trains at one rate ({rate:.3g} when read, and on {len(same)} "
                    f"recorded steps from step {same[0]}): the scheduler writes one rate into "
                    "every group instead of scaling each group's own base rate.",
            evidence={"scheduler": state.type, "base_lrs": list(base),
                      "lrs": list(state.lrs), "steps_with_one_rate": same[:8],
                      "threshold_spread": GROUP_RATE_SPREAD},
            fix="In the scheduler's get_lr, scale each group's own rate: return "
                "[base_lr * factor for base_lr in self.base_lrs], not one rate for every "
                "group.")
    return None
