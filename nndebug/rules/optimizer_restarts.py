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
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

MIN_RESTARTS = 3             # [design] new optimizers at three later steps or more: staged
                             # recipes (freeze then unfreeze, a resume) start one or two


def restart_steps(starts):
    """The distinct steps, after the first start, at which a new optimizer began."""
    steps = sorted({step for step, _ in starts})
    return steps[1:]


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
    return Finding(
        code="OPTIMIZER_STATE_RESET", severity="warning", where=kind, step=later[0],
        message=f"A new {kind} optimizer started stepping the model's parameters "
                f"{how_often} (first at step {later[0]}): each one starts from empty state, "
                "so the moment estimates or momentum gathered so far are thrown away and "
                "the first steps after every restart are taken without them.",
        evidence={"restart_steps": later[:16], "restarts": len(later), "optimizer": kind,
                  "every": every},
        fix="Build the optimizer once, before the training loop, and pass it to the helper "
            "that runs an epoch (and build a new one only where the recipe means to: a new "
            "training stage).")
