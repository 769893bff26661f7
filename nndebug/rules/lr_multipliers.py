"""LR_MULTIPLIER_IGNORED: a param group tagged with a learning-rate multiplier that nothing
applied, so it trains at the rate the multiplier was meant to scale.

Fine-tuning code gives a pretrained backbone a fraction of the new head's rate by tagging
its group (``{"params": backbone, "lr_mult": 0.1}``) and relies on its own optimizer
builder or scheduler to multiply the group's ``lr``. torch.optim reads only its defaults'
keys: an unapplied tag rides along silently and the backbone trains at the head's rate,
which for a pretrained body is usually far too high (msight-tech/research-ms-loss#27).

Read from ``run.observed.lr_multipliers`` (``monitor/lr_multipliers.py``): each group's
multiplier key and its rate when findings were asked for, and the rates at watch start
(``optimizer_settings``). A tagged group whose multiplier departs from 1 is ignored when,
both at watch start and now, its rate equals that of a group the tag sets it apart from (an
untagged group, or one tagged with another multiplier). Where a builder or a scheduler
applies the tags (timm's layer decay, mmcv's paramwise options), the rates differ by the
multipliers' ratio and nothing is said.
"""
import math

from ..findings import Finding
from .graph import rule

MULTIPLIER_DEPARTURE = 0.2   # [design] a multiplier within 20% of 1 changes little: not judged
SAME_RATE = 1e-3             # [design] two rates equal to a part in a thousand: the multiplier
                             # was not applied (an applied one of 0.8 or less differs by 20%)


def _same(a, b):
    return a is not None and b is not None and a > 0 and b > 0 and \
        abs(a - b) <= SAME_RATE * max(a, b)


def _multiplier(row):
    _, key, value, _ = row
    return value if key and value is not None and math.isfinite(value) else 1.0


def ignored_multipliers(rows, start_lrs):
    """[(group, key, multiplier, lr, other group)] of the tagged groups whose rate equals,
    now and at ``start_lrs`` (group -> rate at watch start), the rate of a group meant to
    differ from it."""
    found = []
    for row in rows:
        group, key, value, lr = row
        mine = _multiplier(row)
        if not key or abs(mine - 1.0) <= MULTIPLIER_DEPARTURE:
            continue
        for other in rows:
            if other[0] == group or abs(_multiplier(other) / mine - 1.0) <= MULTIPLIER_DEPARTURE:
                continue
            if _same(lr, other[3]) and _same(start_lrs.get(group), start_lrs.get(other[0])):
                found.append((group, key, mine, lr, other[0]))
                break
    return found


@rule(produces="LR_MULTIPLIER_IGNORED", explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def lr_multiplier_ignored(ctx):
    observed = getattr(ctx.run, "observed", None)
    rows = list(getattr(observed, "lr_multipliers", None) or [])
    if len(rows) < 2:
        return None
    start_lrs = {s.group: s.lr for s in getattr(observed, "optimizer_settings", None) or []}
    found = ignored_multipliers(rows, start_lrs)
    if not found:
        return None
    group, key, value, lr, other = found[0]
    return Finding(
        code="LR_MULTIPLIER_IGNORED", severity="warning", where=f"param group {group}", step=0,
        message=f"Param group {group} carries {key}={value:g}, but its learning rate is "
                f"{lr:g}, the same as group {other}'s, at watch start and now: nothing "
                f"applied the multiplier. torch.optim reads only the keys of its defaults "
                f"and carries any other key along unread, so this group trains at the rate "
                f"the multiplier was meant to scale (for a pretrained backbone tagged "
                f"lr_mult=0.1, the new head's full rate).",
        evidence={"groups": [{"group": g, "key": k, "multiplier": v, "lr": r,
                              "same_rate_as_group": o} for g, k, v, r, o in found],
                  "threshold_same_rate": SAME_RATE},
        fix=f"Set the group's rate itself (\"lr\": base_lr * {key}), or use the optimizer "
            "builder or scheduler that reads this key.")
