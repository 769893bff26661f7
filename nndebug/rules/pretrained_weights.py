"""PRETRAINED_WEIGHTS_NOT_LOADED: the part of the model given a fine-tuning rate holds a
fresh random initialisation, not pretrained weights.

A learning rate several times smaller for one param group than for another is how
fine-tuning protects a pretrained body while a new head learns. If that body's weights
still look exactly like a layer's random initialisation when training starts, the
checkpoint never reached them: a loader whose key filter matched nothing
(jfzhang95/pytorch-deeplab-xception#125), an initialiser run after the load
(thulab/DeepHash#54), a load into another object. The body then trains from scratch at a
rate meant for small corrections, and nothing fails.

Read from ``run.observed.slow_group_weights`` (``monitor/slow_group_weights.py``): the
weight tensors of the groups at ``1 / SLOW_RATIO`` or less of the fastest group's rate, and
the initialiser each still looks like at watch start (FROZEN_PARAMETERS' test: centred,
shaped and spread like a uniform or normal draw of the usual initialisers, within sampling
noise). Said when at least half of a slow group's weights look fresh. Trained weights (a loaded
checkpoint, even a briefly trained one) move away from every initialiser's shape and
spread at once.
"""
from ..findings import Finding
from .context import MAJORITY, short_list
from .graph import rule

MIN_WEIGHTS = 1   # [design] at least one fresh weight tensor, and at least half of the
                  # group's (MAJORITY): a loaded body has none; a checkpoint that reached only
                  # part of it is as much a bug. (Two was tried: one of a body's two convs
                  # missed the fresh test by sampling noise, its mean 0.251 std from zero.)


@rule(produces="PRETRAINED_WEIGHTS_NOT_LOADED", explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def pretrained_weights_not_loaded(ctx):
    observed = getattr(ctx.run, "observed", None)
    rows = list(getattr(observed, "slow_group_weights", None) or [])
    by_group = {}
    for group, lr, fastest, name, looks_like in rows:
        by_group.setdefault(group, (lr, fastest, [], []))
        by_group[group][2].append(name)
        if looks_like:
            by_group[group][3].append((name, looks_like))
    for group, (lr, fastest, names, fresh) in sorted(by_group.items()):
        if len(fresh) < MIN_WEIGHTS or len(fresh) < MAJORITY * len(names):
            continue
        first, how = fresh[0]
        return Finding(
            code="PRETRAINED_WEIGHTS_NOT_LOADED", severity="warning", where=f"param group {group}",
            step=0,
            message=f"Param group {group} trains at {lr:g}, {fastest / lr:.0f}x slower than "
                    f"the fastest group ({fastest:g}): the rate fine-tuning gives pretrained "
                    f"layers. But {len(fresh)} of its {len(names)} weight tensors "
                    f"({short_list([n for n, _ in fresh])}) looked exactly like a fresh random "
                    f"initialisation when training started ({how} for {first}): the "
                    "pretrained weights never reached them, and they train from scratch at a "
                    "rate meant for small corrections.",
            evidence={"group": group, "lr": lr, "fastest_lr": fastest,
                      "fresh": {n: h for n, h in fresh}, "weights": len(names),
                      "threshold_majority": MAJORITY},
            fix="Check the load: load_state_dict(..., strict=True) reports missing keys; load "
                "after any initialiser (model.apply(init) draws over loaded weights); "
                "load into the model you train, not a copy.")
    return None
