"""LR_OVERRIDDEN_BY_CHECKPOINT: a restarted run trains at the learning rate saved in the
checkpoint, not at the one its optimizer was built with.

A run restarted to go on at another rate (lower, to settle; higher, after a too-cautious
start) builds its optimizer with the new rate and then calls
``optimizer.load_state_dict(checkpoint["optimizer"])``. Loading restores the saved param
groups whole, rate included, so the new rate is silently dropped; the log, printing the
configured rate, says the change happened. Public reports: "Unable to change the learning
rate when restarting from a previous checkpoint",
https://github.com/OpenNMT/OpenNMT-py/issues/1911; the same in pytorch/examples#816,
facebookresearch/detr#301 and mapbox/robosat#169.

Read from the settings taken once when watching started (``OptimizerSetting``:
``built_with_lr`` from ``optimizer.defaults``, ``held_state``): the optimizer already held
per-parameter state (it was restored, or stepped before), every group's rate is at least
``LR_RESTORED_RATIO`` away from the constructor's, and nothing moved the rate during the
run: no scheduler drives the optimizer (a loaded scheduler legitimately leaves the groups
at its decayed rate) and every judged record saw the groups' rates of the first. A group
given its own rate when built, or a hand-written schedule, can leave a rate apart from the
constructor's as well; the first needs every group set apart and a restored state, the
second changes the rate, so neither is named here.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

LR_RESTORED_RATIO = 2.0       # [design] every group at least 2x above or below the
                              # constructor's rate: a restart changes the rate by a factor
                              # (the report: 1e-3 -> 1e-5); float noise and a rounding of the
                              # printed rate stay far below
RESTORED_RATE_UNCHANGED = 1e-9   # [design] relative tolerance of "the rate did not change"


def apart(rate, built_with):
    """How many times one rate is away from the other (>= 1), or None if not measurable."""
    if not (rate and built_with and rate > 0 and built_with > 0):
        return None
    return max(rate / built_with, built_with / rate)


def rates_held(ctx):
    """Whether every judged record saw the groups' rates of the first one that knew them."""
    rates = [r.lrs for r in ctx.run.records if r.lrs]
    if not rates:
        return False
    first = rates[0]
    return all(len(r) == len(first) and
               all(abs(a - b) <= RESTORED_RATE_UNCHANGED * max(abs(a), abs(b)) for a, b in zip(r, first))
               for r in rates[1:])


@rule(produces="LR_OVERRIDDEN_BY_CHECKPOINT",
      explains={"LR_TOO_HIGH", "LR_TOO_LOW", "LOSS_OSCILLATING", "LOSS_PLATEAU"})
def lr_overridden_by_checkpoint(ctx):
    settings = observed_list(ctx, "optimizer_settings")
    if not settings or not all(s.held_state for s in settings):
        return None
    gaps = [apart(s.lr, s.built_with_lr) for s in settings]
    if any(gap is None or gap < LR_RESTORED_RATIO for gap in gaps):
        return None
    if observed_list(ctx, "schedulers") or not rates_held(ctx):
        return None
    first = settings[0]
    rates = sorted({s.lr for s in settings})
    trained = ", ".join(f"{r:.3g}" for r in rates)
    return Finding(
        code="LR_OVERRIDDEN_BY_CHECKPOINT", severity="warning", where="optimizer",
        message=f"The optimizer was built with lr={first.built_with_lr:.3g} but trained at "
                f"{trained} ({min(gaps):.3g} x apart or more, in every group) from its first "
                "watched step to its last, and it already held per-parameter state "
                f"({first.type}'s moments or momentum) when watching started: a restart "
                "that passes a new rate to the constructor and then calls "
                "optimizer.load_state_dict(checkpoint) gets the saved param groups back, "
                "their rate included, and the new rate is dropped. No scheduler drives it "
                "and the rate never changed during the run.",
        evidence={"built_with_lr": first.built_with_lr, "trained_lrs": rates,
                  "groups": len(settings), "times_apart": min(gaps),
                  "threshold": LR_RESTORED_RATIO},
        fix="Set the rate after loading the optimizer's state: for group in "
            "optimizer.param_groups: group['lr'] = new_lr (a loaded scheduler keeps its own "
            "base rates: change those too), or leave the optimizer's state out of the "
            "checkpoint you restart from when it should start anew. If the checkpoint's "
            "rate is the one you meant, build the optimizer with it.")
