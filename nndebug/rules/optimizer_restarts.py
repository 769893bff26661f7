"""OPTIMIZER_STATE_RESET: new optimizers, again and again, over the parameters being trained.

An optimizer built inside the epoch loop (or inside an epoch helper, or the batch loop)
starts from empty state every time: Adam's moments at zero and its step count back at one,
SGD's momentum buffer gone. Each restart throws away what the optimizer had gathered, and
Adam's first bias-corrected steps move every weight by about the whole learning rate
whatever its gradient. Public report: "Maintain optimiser object during training",
https://github.com/alan-turing-institute/deepsensor/issues/47 (an epoch helper building
Adam each call; one optimizer for the run gave a ~20% lower training loss).

Read from ``run.observed.optimizer_starts`` (``monitor/optimizer_restarts.py``): the steps at
which an optimizer with state, not seen before, first stepped the watched parameters.
Several optimizers that start together (a generator's and a discriminator's, an encoder's
and a decoder's) are one start; a recipe in stages (a frozen backbone, then all of it; a
resumed checkpoint) builds a new optimizer once or twice. A new one at MIN_RESTARTS or more
later steps is a loop that rebuilds it.

(real-bug batch 153) A loop may rebuild its optimizer to change the rate: hyperIQA builds
Adam anew each epoch with the rates halved, a schedule written by rebuilding. The moments are
still thrown away at each rebuild, but that is the recipe, and its run learned well (held-out
MSE 0.08); when every rebuild starts at another learning rate than the optimizer before it,
the finding is info. A rebuild at the same rate (deepsensor's epoch helper) stays a warning.
"""
import math

from ..findings import Finding
from .context import observed_list
from .graph import rule

MIN_RESTARTS = 3             # [design] new optimizers at three later steps or more: staged
                             # recipes (freeze then unfreeze, a resume) start one or two


def restart_steps(starts):
    """The distinct steps, after the first start, at which a new optimizer began."""
    steps = sorted({row[0] for row in starts})
    return steps[1:]


def rate_changed_each_time(starts):
    """Whether every start after the first has a finite learning rate different from the
    start before it (rows saved before the rate was kept: False)."""
    rates = [row[2] if len(row) > 2 else math.nan for row in starts]
    return len(rates) >= 2 and all(math.isfinite(a) and math.isfinite(b) and a != b
                                   for a, b in zip(rates, rates[1:]))


@rule(produces="OPTIMIZER_STATE_RESET")
def optimizer_state_reset(ctx):
    starts = observed_list(ctx, "optimizer_starts")
    later = restart_steps(starts)
    if len(later) < MIN_RESTARTS:
        return None
    kind = starts[-1][1]
    gaps = [b - a for a, b in zip([starts[0][0]] + later[:-1], later)]
    every = min(gaps) if gaps and min(gaps) == max(gaps) else None
    how_often = f"every {every} steps" if every else f"{len(later)} times"
    scheduled = rate_changed_each_time(starts)
    return Finding(
        code="OPTIMIZER_STATE_RESET", severity="info" if scheduled else "warning",
        where=kind, step=later[0],
        message=f"A new {kind} optimizer started stepping the model's parameters "
                f"{how_often} (first at step {later[0]}): each one starts from empty state, "
                "so the moment estimates or momentum gathered so far are thrown away and "
                "the first steps after every restart are taken without them." +
                (" Each one starts at a new learning rate: a schedule written by rebuilding "
                 "the optimizer, which a scheduler gives without the restarts." if scheduled
                 else ""),
        evidence={"restart_steps": later[:16], "restarts": len(later), "optimizer": kind,
                  "every": every, "rate_changed_each_time": scheduled},
        fix="Build the optimizer once, before the training loop, and pass it to the helper "
            "that runs an epoch (and build a new one only where the recipe means to: a new "
            "training stage)" + ("; change its rate with a scheduler (StepLR, LambdaLR) or "
                                 "by setting param_group['lr']." if scheduled else "."))
