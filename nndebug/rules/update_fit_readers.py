"""Readers of ``run.observed.update_fits`` (``monitor/update_samples.py``) shared by the rule
files (real-bug batch 99): the thresholds, and the velocity-never-decays verdict that
``setup``'s GRADIENTS_ACCUMULATING rule falls back to. Not a rule file (no ``@rule`` here):
rule files import it without changing the registration order."""
import numpy as np

from ..findings import Finding

SAME_RULE_SHARE = 0.9    # [design] the update rule is the same at every step: 90% of the
                         # fitted steps (or pairs) agree, leaving room for steps with no
                         # gradient on the sampled entries
MIN_FITTED_STEPS = 20    # [design] fitted steps needed (the window holds 48)
MIN_INVERTED_DECAY = 1e-5   # [design] -b / a: a tenth of the smallest weight decay in common
                            # use (1e-4, torchvision's ResNet recipe); plain SGD fits
                            # |b / a| ~ 1e-9 (float rounding, measured)
NO_DECAY = 0.9995        # [design] c at or above this is no decay: the largest momentum in
                         # use is 0.999 (Sutskever et al. 2013's schedule); the bug fits
                         # c = 1.0000 (measured), momentum 0.99 fits 0.9900


def update_fit_rows(ctx):
    """The run's fitted update rows (see ``monitor/update_samples.update_fits``), or []."""
    observed = getattr(ctx.run, "observed", None)
    return list(getattr(observed, "update_fits", None) or [])


def velocity_never_decays(ctx):
    """GRADIENTS_ACCUMULATING when the updates of the first optimizer steps are exactly the
    previous update plus a multiple of the new gradient (c >= NO_DECAY), or None."""
    kept = []
    for name, _, _, _, _, _, pairs, memory, c, *_ in update_fit_rows(ctx):
        if pairs >= MIN_FITTED_STEPS and memory >= SAME_RULE_SHARE and np.isfinite(c) and \
                c >= NO_DECAY:
            kept.append((name, c, memory))
    if not kept:
        return None
    name, c, memory = kept[0]
    return Finding(
        code="GRADIENTS_ACCUMULATING", severity="error", where=", ".join(r[0] for r in kept),
        message=f"Each optimizer step of {name} is the previous step again ({c:.4f} x it) plus "
                f"a multiple of the new gradient (fitted exactly on {memory:.0%} of the sampled "
                "pairs of steps): the update is the running sum of every gradient so far. "
                "Momentum decays the old ones (0.9 x the previous step); nothing decays them "
                "here, so the effective step grows with the run and the weights overshoot and "
                "swing (a velocity updated as v + mu * g instead of mu * v + g, or .grad never "
                "cleared).",
        evidence={"parameters": [r[0] for r in kept], "previous_update_coefficient": c,
                  "fitted_share": memory, "threshold": NO_DECAY},
        fix="Decay the velocity: v = mu * v + g (mu < 1), then w -= lr * v; and clear .grad "
            "once per step (optimizer.zero_grad()).")
