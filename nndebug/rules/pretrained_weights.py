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

Without a slow group (a resume, a fine-tune of the whole model at one rate) the intent to
start from a checkpoint shows another way: a state dict of the model (its weight names,
with or without one prefix, and shapes) is a local of the training function when watch
starts (``run.observed.unloaded_checkpoints``, ``monitor/unloaded_checkpoints.py``). Said
when the model did not hold it then (as far from it as an independent initialisation),
was still that far at the end, and the run learned poorly: a strict=False load whose keys
carry a prefix (pytorch/examples#1029), Lightning's ``load_from_checkpoint`` called on an
instance and its returned model dropped (Lightning-AI/pytorch-lightning#4789).

Not said when at least half of the slow groups' weights look trained (real-bug batch 298):
the checkpoint reached the body, and the fresh tensors beside it are new layers put in its
group (``context.fresh_beside_trained_in_slow_groups``; LR_TOO_LOW names them).
"""
from ..findings import Finding
from .context import MAJORITY, fresh_beside_trained_in_slow_groups, observed_list, short_list
from .curve import learning_poor
from .graph import rule

MIN_WEIGHTS = 1   # [design] at least one fresh weight tensor, and at least half of the
                  # group's (MAJORITY): a loaded body has none; a checkpoint that reached only
                  # part of it is as much a bug. (Two was tried: one of a body's two convs
                  # missed the fresh test by sampling noise, its mean 0.251 std from zero.)


CHECKPOINT_FAR = 0.9   # [design] median relative distance |w - w_ckpt| / |w_ckpt| of the
                       # model's weights from a state dict of it in scope when watch started.
                       # Loaded from it: 0. Never given it: an independent draw, whose
                       # distance is sqrt(1 + |w|^2 / |w_ckpt|^2) >= 1 (1.08-1.17 measured in
                       # the batch-90 cases). Between: a model given related weights on
                       # purpose (the raw weights beside a checkpoint's EMA average: 0.66
                       # measured). At the end it must still be as far (a loaded and
                       # fine-tuned model is 0.02-0.03 away from its checkpoint)


@rule(produces="PRETRAINED_WEIGHTS_NOT_LOADED", explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def pretrained_weights_not_loaded(ctx):
    if fresh_beside_trained_in_slow_groups(ctx) is not None:
        # (real-bug batch 298) most slow weights look pretrained: the checkpoint arrived, and
        # the fresh ones are new layers given its fine-tuning rate (LR_TOO_LOW says so)
        return checkpoint_never_loaded(ctx)
    rows = observed_list(ctx, "slow_group_weights")
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
    return checkpoint_never_loaded(ctx)


def checkpoint_never_loaded(ctx):
    """A state dict of the model in the training function's scope when watch started
    (``run.observed.unloaded_checkpoints``) that the model did not hold then - it was as far
    from it as an independent initialisation is - nor came near by the end, on a run that
    learned poorly: the checkpoint never reached the model (real-bug batch 90)."""
    rows = [row for row in observed_list(ctx, "unloaded_checkpoints")
            if len(row) == 6 and row[4] >= CHECKPOINT_FAR
            and (row[5] < 0 or row[5] >= CHECKPOINT_FAR)]
    if not rows or not learning_poor(ctx):
        return None
    local, prefix, matched, weights, distance, _ = max(rows, key=lambda row: row[2])
    if prefix.startswith("-"):
        keys = f"its keys are the model's names without the prefix '{prefix[1:]}'"
    elif prefix:
        keys = f"its keys are the model's names with the prefix '{prefix}'"
    else:
        keys = "its keys are the model's own names"
    return Finding(
        code="PRETRAINED_WEIGHTS_NOT_LOADED", severity="warning", where=f"'{local}'",
        step=0,
        message=f"'{local}', a state dict of this model in the training function's scope "
                f"when training started, holds {matched} of its {weights} weight matrices "
                f"with their shapes ({keys}), but the model did not start from those "
                "weights: it was as far from them as an independent initialisation is "
                f"(median relative distance {distance:.2f}), stayed far, and the run learned "
                "poorly. The checkpoint never reached the model; it trained from its random "
                "initialisation.",
        evidence={"local": local, "prefix": prefix, "matched": matched, "weights": weights,
                  "median_relative_distance": round(float(distance), 3),
                  "threshold_far": CHECKPOINT_FAR},
        fix="Load into the model you train and check the result: "
            "model.load_state_dict(sd) with strict=True (it raises on missing keys; strip a "
            "'module.' / 'model.' prefix first); a loader that returns a new model "
            "(Lightning's Model.load_from_checkpoint) must be assigned: "
            "model = Model.load_from_checkpoint(path).")
