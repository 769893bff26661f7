"""ADAM_BETAS_INVERTED: Adam's betas written as 1 - beta (0.1 and 0.001 where 0.9 and 0.999
are meant), a convention some libraries and early versions of the Adam paper use.

beta2 weighs the OLD second-moment estimate: at 0.999 it averages the squared gradient over
about a thousand steps; at 0.001 it forgets everything after one step, so Adam divides each
gradient by its own size and every step is about lr x sign(gradient), with beta1 = 0.1
leaving almost no momentum to smooth it. Training goes on, noisier and stalling early:
nothing in the loss names the cause, the setting does. It is read once when watching
starts (``run.observed.optimizer_settings``); no published Adam setting has beta2 below
0.9 (GANs use 0.9 or 0.99, large language models 0.95), so a beta2 under one half is a
warning whatever the loss does.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

BETA2_FLOOR = 0.5            # [torchadam] beta2 below one half: the squared-gradient average
                             # spans under two steps. torch's default is 0.999; published
                             # settings stay at 0.9 or above (GANs 0.9-0.99, LLMs 0.95)
ADAM_FAMILY = {"Adam", "AdamW", "Adamax", "NAdam", "RAdam"}   # torch's (and minigrad's)
                             # class names of the optimizers whose betas mean this


def inverted_groups(settings):
    """The Adam-family param groups whose beta2 lies below BETA2_FLOOR."""
    return [s for s in settings
            if s.type in ADAM_FAMILY and s.betas is not None and len(s.betas) == 2 and
            s.betas[1] is not None and s.betas[1] < BETA2_FLOOR]


@rule(produces="ADAM_BETAS_INVERTED",
      explains={"LOSS_PLATEAU", "LOSS_OSCILLATING", "LOSS_DIVERGING"})
def adam_betas_inverted(ctx):
    groups = inverted_groups(observed_list(ctx, "optimizer_settings"))
    if not groups:
        return None
    first = groups[0]
    beta1, beta2 = first.betas
    return Finding(
        code="ADAM_BETAS_INVERTED", severity="warning", where=f"{first.type} group {first.group}",
        step=None,
        message=f"{first.type} was built with betas=({beta1:g}, {beta2:g}): beta2 weighs the "
                f"old second-moment estimate, and at {beta2:g} it keeps under "
                f"{1 / (1 - beta2):.2g} steps of it, so every step is about lr x "
                "sign(gradient). These look like 1 - beta (the convention of some libraries "
                "and of early versions of the Adam paper) handed to an optimizer that "
                "takes beta itself.",
        evidence={"groups": [{"group": s.group, "type": s.type, "betas": list(s.betas)}
                             for s in groups], "beta2_floor": BETA2_FLOOR},
        fix=f"Pass the betas themselves: betas=({1 - beta1:g}, {1 - beta2:g}) if these were "
            "written as 1 - beta (torch's default is (0.9, 0.999)).")
