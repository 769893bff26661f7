"""Rules about the learning rate, judged by the update/weight ratio it produces per step
(about 1e-3 is healthy [karpathy]) together with what the loss does.

A learning rate is a cause: it ranks after data and set-up bugs and before the symptoms it
produces in activations, gradients and the loss curve.
"""
import warnings

import numpy as np

from ..findings import Finding
from .context import (fresh_beside_trained_in_slow_groups, median, modules, nanmedian,
                      nanmedian_columns, short_list)
from .curve import (NOISE_SIGMAS, _from_first_loss, at_chance, calm_before_nan,
                    cross_entropy_chance, curve_blew_up, curve_poor, entropy_floor,
                    gained_beyond_noise, learning_poor, loss_blew_up, loss_without_level,
                    starts_fresh)
from .graph import rule

LR_HIGH_RATIO = 0.1           # update/weight ratio per step; ~1e-3 is healthy [karpathy];
                              # 0.1 rewrites a tenth of the weights each step [measured]
LR_LOW_RATIO = 1e-5           # [karpathy] two orders below his 1e-3 ... when learning is poor
HEALTHY_RATIO = 1e-3          # [karpathy] the update/weight ratio of a well-chosen learning rate
STEADY_RATE_SHARE = 0.1       # [design] a rate that ends above a tenth of where it started
                              # was not scheduled down far enough to explain stalled updates
EARLY_RECORDS = 5             # [design] "the first steps": the first 5 recorded steps
LR_COLLAPSE = 1e-3            # [design] a group's learning rate ending below 1e-3 of where it
                              # started has collapsed (the factor lr_too_low calls "decayed")
PRETRAINED_UPDATE_SHARE = 0.05   # [measured] (real-bug batch 73) a model that came pretrained
                              # (batch norms with running statistics) whose weights move by
                              # this share per step (median over tensors, first records):
                              # 0.09-0.19 with a backbone at its new head's rate (Adam 0.03,
                              # detr#95), 0.002 with the backbone at a hundredth of it, 0.006-
                              # 0.008 for Adam 1e-3 everywhere - the pretrained weights are
                              # rewritten, an effect of their own
LOSS_WEIGHT_LOW = 0.3         # [design] (real-bug batch 74) the mean loss enters each optimizer
                              # step with under 0.3 of its weight: divided by 4 or more beyond
                              # its mean (a loss divided by the accumulation count twice, N >= 4,
                              # rf-detr#1503); healthy loops give 1 (monitor/loss_weights.py)
MIN_WEIGHED_STEPS = 2         # [design] optimizer steps whose whole loss weight was seen
PROPORTIONAL_OPTIMIZERS = {"SGD"}   # [design] steps proportional to the gradient: a scaled
                              # loss scales the step; Adam-like steps divide the scale out
# (real-bug batch 84) a rate too high that the optimizer survives, and a rate too low that
# still trains, read off the loss curve alone (nothing observed beyond it)
FIRST_UPDATE_STEPS = 10       # [design] "the first updates": the losses of steps 1..10, set
                              # against step 0's, taken before any update
EARLY_LOSS_RISE = 0.25        # [measured] their median 25% or more above step 0's loss: Adam at
                              # lr 1.0 on a char LSTM, 4.11 -> 5.8 (x1.41); healthy runs fall
                              # from step 0 (the fixed twin, Adam 3e-3: 4.11 -> 4.0)
LOSS_REBOUND = 0.1            # [measured] ... and the run ends 10% or more above its best window
                              # (3.47 against 2.57 there; a healthy run ends near its best)
EARLY_LOSS_JUMP = 0.5         # [measured] ... or that median 1.5x step 0's loss or more, ended
                              # where it may: Adam at 1.0 on the char LSTM 1.41x (seeds shifted
                              # by 1000: 1.55x, ending at its best, 2.73 against the twin's 1.9),
                              # AdamW at 1.0 on a wider one 3.1x; healthy Adam, RMSprop and SGD
                              # runs on the digits and the sonnets fall from step 0 (<= 1.0x)
DESCENT_PACE_KEPT = 0.75      # [measured] the loss falls over the last third of its windows at
                              # three quarters or more of the pace of the first third: a healthy
                              # curve bends (fast, then slow); one limited by its step size does
                              # not (0.92-1.26: SGD 1e-3 with momentum, Adam 1e-4, a rate divided
                              # by the batch); a curve whose pace halved (0.55: Adam 2e-4 halved
                              # by a StepLR, a fixed twin) has bent
STILL_FALLING_MAX_RATIO = 2.5e-3  # [measured] ... and no layer moves faster than this share of
                              # its weights a step over the run's second half: the steps ARE
                              # short (1.4e-3 on both reports above); a healthy run stopped
                              # while still falling takes bigger ones (a ReLU RNN at Adam 1e-3
                              # 4.4e-3, the same in minigrad 5.1e-3)
RATE_CUT_SHARE = 0.05         # [design] or a schedule cut every group's rate to 1/20 of where it
                              # started by the run's middle, the loss still falling at the end
                              # (a cosine to zero is at half its rate there, a step decay by 0.1
                              # at a tenth)
FLAT_MAX_RATIO = 5e-4         # [design] (real-bug batch 209) half the healthy 1e-3 [karpathy]: no
                              # layer moves faster than this a step over the run's second half
                              # (a DragonNet at a hard-coded SGD 1e-5 with momentum: 1.5e-4; its
                              # twin at the user's 1e-2: 3.7e-3 to 1.3e-2)
FLAT_GAIN = 0.05              # [design] ... and the loss gained under a twentieth of its start
                              # beyond its noise (gained_beyond_noise, the best window taken its
                              # standard errors up; POOR_IMPROVEMENT's 0.2 is "poor"): that
                              # DragonNet 0.024, its twin 0.63


def _ratio_summary(ctx):
    """(median per weight tensor over the run, max per weight tensor over the first
    records, median per weight tensor over the first records); each None when nothing
    finite was measured."""
    ratios = ctx.ratios()
    if ratios.size == 0:
        return None, None, None
    early = ratios[: max(1, min(len(ratios), EARLY_RECORDS))]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # a tensor never measured: NaN
        per_layer = nanmedian_columns(np.where(np.isfinite(ratios), ratios, np.nan)) \
            if np.isfinite(ratios).any() else None
        early_layer = np.nanmax(np.where(np.isfinite(early), early, np.nan), axis=0) \
            if np.isfinite(early).any() else None
        early_typical = nanmedian_columns(np.where(np.isfinite(early), early, np.nan)) \
            if np.isfinite(early).any() else None
    return per_layer, early_layer, early_typical


def _learning_rates(ctx):
    return sorted({lr for r in ctx.records for lr in r.lrs})


@rule(produces="LR_TOO_HIGH", reads={"EXPLODING_GRADIENTS", "DEAD_RELU"},
      explains={"NAN_LOSS", "NAN_GRADIENTS", "LOSS_DIVERGING", "LOSS_OSCILLATING", "DEAD_RELU",
                "EXPLODING_GRADIENTS", "LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def lr_too_high(ctx):
    """Updates far above the healthy size (the largest of the first records, or the run's
    median) together with an effect a rate too high has: the loss blew up, ReLU units died,
    or the loss does not improve. A NaN out of a calm run (``curve.calm_before_nan``) is no
    blow-up of the rate's; and "does not improve" needs updates that stay large past the
    first records (their median, not only their largest): adaptive optimizers move every
    weight by about the learning rate on their first steps (RMSprop without bias
    correction by ten times it) and shrink the steps by themselves, so a large first step
    in a run that fails for another reason does not blame the rate (public report: a
    sigmoid squashing a siamese distance, https://github.com/keras-team/keras-io/pull/2261).
    """
    per_layer, early_layer, early_typical = _ratio_summary(ctx)
    if early_layer is None:
        return None
    big = float(nanmedian(early_layer))
    typical = float(nanmedian(per_layer)) if per_layer is not None else big
    sustained = max(typical, float(nanmedian(early_typical)) if early_typical is not None
                    else typical)
    if not (big > LR_HIGH_RATIO or typical > LR_HIGH_RATIO):
        return None
    exploding = ctx.found.get("EXPLODING_GRADIENTS")
    if exploding is not None and exploding.evidence.get("from_start"):
        return None     # the updates are huge because the gradients are: not the LR's fault
    died = ctx.found.get("DEAD_RELU")
    died_later = died is not None and died.severity != "info" and \
        died.evidence.get("died_during_training")
    calm_nan = calm_before_nan(ctx)
    blew_up = curve_blew_up(ctx) if calm_nan else loss_blew_up(ctx)
    poor = (curve_poor(ctx) if calm_nan else learning_poor(ctx)) and \
        sustained > LR_HIGH_RATIO
    if loss_without_level(ctx) and ctx.first_nan_step is None:
        # (real-bug batch 256) a policy surrogate's or an energy gap's curve rises and swings
        # with the advantages, not with the rate: neither a blow-up nor a lack of progress
        blew_up = poor = False
    # (real-bug batch 73) a pretrained model's weights rewritten within a few steps
    rewritten = bool(getattr(ctx.run.observed, "pretrained_norm_inputs", None)) and \
        early_typical is not None and \
        float(nanmedian(early_typical)) > PRETRAINED_UPDATE_SHARE
    raised = sustained > LR_HIGH_RATIO and _raised_at_once(ctx)     # real-bug batch 84
    if not (blew_up or died_later or poor or rewritten or raised):
        return None
    lrs = _learning_rates(ctx)
    # (real-bug batch 82) adapters: trainable weights that started all zero (LoRA's B)
    zero_start = getattr(ctx.run.observed, "zero_start_parameters", None) or []
    effect = ("killed ReLU units" if died_later else
              "made the loss blow up" if blew_up else
              "keeps the loss from improving" if poor else
              "made the loss worse at once (the first steps above the loss before any "
              "update), and the run ends well above its best loss" if raised else
              "rewrites the pretrained weights within a few steps (a rate meant for a new "
              "head, given to the pretrained backbone too)")
    return Finding(
        code="LR_TOO_HIGH", severity="warning", step=ctx.first_step,
        message=f"Each update changes the weights by {big:.0%} of their size in the first steps "
                f"(healthy is about 0.1%); the learning rate is too high and {effect}.",
        evidence={"update_to_weight_early": big, "update_to_weight_median": typical,
                  "healthy_ratio": HEALTHY_RATIO, "threshold": LR_HIGH_RATIO,
                  "update_to_weight_early_median": sustained, "learning_rates": lrs[:5]},
        fix="Lower the learning rate 3-10x (nndebug.find_lr suggests one); add warm-up, and "
            "gradient clipping if spikes remain." + (
                " Weights that started at zero are trained (" +
                short_list([row[0] for row in zero_start]) + "): for LoRA-style adapters "
                "the scale multiplies the step, so check it is alpha / rank, not alpha."
                if zero_start else ""))


def _raised_at_once(ctx):
    """(real-bug batch 84) The first updates made the loss worse - the median of steps
    1..FIRST_UPDATE_STEPS above step 0's loss (taken before any update) by EARLY_LOSS_RISE
    of it and by the minibatch noise - and the run ends LOSS_REBOUND above its best window
    (or that median is EARLY_LOSS_JUMP above step 0's: the loss jumped at once):
    a rate the optimizer survives (Adam's steps shrink as its second moments grow) but that
    threw the weights far off at once and keeps them from settling. Public report: Adam
    given a config's SGD rate of 1.0 (https://github.com/rajveermalviya/language-modeling/
    issues/3)."""
    s = ctx.summary
    curve = ctx.curve
    if s is None or not ctx.enough_steps or len(curve) <= FIRST_UPDATE_STEPS or \
            int(ctx.curve_steps[0]) != 0:
        return False
    first = float(curve[0])
    after = float(np.median(curve[1:1 + FIRST_UPDATE_STEPS]))
    if not after > first + max(EARLY_LOSS_RISE * abs(first), NOISE_SIGMAS * s["noise"]):
        return False
    if after >= first + EARLY_LOSS_JUMP * abs(first):
        return True
    return s["end"] > s["best"] + max(LOSS_REBOUND * abs(s["best"]),
                                      NOISE_SIGMAS * s["window_error"])


# what else keeps a classifier's loss at chance with small updates: found, it is the cause,
# not the learning rate (the slow-at-chance verdict below then stays silent)
SLOW_AT_CHANCE_OTHER_CAUSES = ("DOUBLE_SOFTMAX", "DEAD_RELU", "VANISHING_GRADIENTS",
                               "SATURATED_ACTIVATIONS", "COLLAPSED_ACTIVATIONS",
                               "CONSTANT_INPUTS", "NO_GRADIENT", "OPTIMIZER_MISSING_PARAMS")


@rule(produces="LR_TOO_LOW", reads={"PARAMS_NOT_UPDATING", *SLOW_AT_CHANCE_OTHER_CAUSES},
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def lr_too_low(ctx):
    fresh = fresh_layers_at_fine_tuning_rate(ctx)    # real-bug batch 298: read at the start
    if fresh is not None:
        return fresh
    if not ctx.enough_steps or not learning_poor(ctx) or "PARAMS_NOT_UPDATING" in ctx.found:
        return None     # asked first: both verdicts need it, and it spares the per-layer medians
    divided = _loss_divided_per_step(ctx)   # real-bug batch 74
    if divided is not None:
        return divided
    cut = _rate_cut_before_fresh_run(ctx)   # real-bug batch 100
    if cut is not None:
        return cut
    # only layers that get a gradient and belong to the optimizer: a zero update from a zero
    # gradient (dead units) or from a missing parameter is another finding's business
    ratios = ctx.ratios()
    grads = ctx.matrix("grad_norm")[:, ctx.weights]
    held = [ctx.run.params[i].in_optimizer is not False for i in ctx.weights]
    per_layer = []
    recent = np.arange(len(ratios)) >= len(ratios) // 2     # the LR now, not at the start
    live = np.isfinite(ratios) & np.isfinite(grads) & (grads > 0) & recent[:, None]
    for j in range(ratios.shape[1]):
        if held[j] and live[:, j].any():
            per_layer.append(float(median(ratios[live[:, j], j].tolist())))
    if not per_layer:
        return None
    fastest = float(np.max(per_layer))
    if fastest >= LR_LOW_RATIO:
        return collapsed_group_rates(ctx, ratios, live, held) or \
            slow_at_chance(ctx, fastest) or still_falling(ctx, fastest) or \
            flat_with_short_steps(ctx, fastest)
    if _fast_then_stalled_at_a_steady_rate(ctx):
        return None
    lrs = _learning_rates(ctx)
    decayed = len(lrs) >= 2 and 0 < lrs[0] < 1e-3 * lrs[-1]
    message = (f"Even the fastest-changing layer moves only {fastest:.1e} of its weight size per "
               "step (healthy is about 1e-3) and the loss is not improving: the learning rate "
               "is too low")
    message += " (it was decayed by a factor of %.0e during the run)." % (lrs[-1] / lrs[0]) \
        if decayed else "."
    return Finding(
        code="LR_TOO_LOW", severity="warning", step=ctx.first_step, message=message,
        evidence={"update_to_weight_max_layer": fastest, "healthy_ratio": HEALTHY_RATIO,
                  "threshold": LR_LOW_RATIO,
                  "learning_rates": lrs[:5] + ([lrs[-1]] if len(lrs) > 5 else []),
                  "lr_decayed": bool(decayed)},
        fix="Raise the learning rate (try 10x steps; nndebug.find_lr suggests one)" +
            ("; check the scheduler: step it once per epoch, not per batch." if decayed else "."))


def fresh_layers_at_fine_tuning_rate(ctx):
    """(real-bug batch 298) LR_TOO_LOW for new layers put in the pretrained body's param
    group: a slow group (1/5 or less of the fastest group's rate) holds weight tensors that
    looked freshly initialised when watching started, beside a majority that looked trained
    (``context.fresh_beside_trained_in_slow_groups``). The trained ones show the checkpoint
    arrived and the slow rate is the fine-tuning rate meant for them; a random layer at that
    rate stays close to where it was drawn, and everything after it reads the body through
    noise. Said whatever the curve: the evidence is the layout of the groups, read at the
    start. Public reports: a spatial-tuning adapter given the backbone's rate
    (https://github.com/lightly-ai/lightly-train/pull/646: "As the STA is randomly
    initialized during training the backbone learning rate is too low"); a book's
    differential rates [1e-2, 1e-4, 1e-8], meant head first, zipped with groups listed input
    side first (https://github.com/falloutdurham/beginners-pytorch-deep-learning/pull/27)."""
    found = fresh_beside_trained_in_slow_groups(ctx)
    if found is None:
        return None
    fresh, trained = found
    group, lr, fastest, name, how = min(fresh, key=lambda row: row[1])
    names = [row[3] for row in fresh]
    return Finding(
        code="LR_TOO_LOW", severity="warning", where=", ".join(modules(names)), step=0,
        message=f"{len(names)} weight tensor(s) that looked freshly initialised when training "
                f"started ({short_list(names)}; {name}: {how}) train in a slow param group "
                f"(group {group} at {lr:g}, {fastest / lr:.0f}x below the fastest group's "
                f"{fastest:g}), beside {len(trained)} that looked trained "
                f"({short_list(trained)}): the fine-tuning rate meant for pretrained weights "
                "was given to a new layer, which barely moves from its random start.",
        evidence={"fresh": {row[3]: row[4] for row in fresh},
                  "fresh_groups": sorted({row[0] for row in fresh}), "lr": lr,
                  "fastest_lr": fastest, "trained_weights": len(trained)},
        fix="Put new layers (head, adapter, neck) in the group with the new parts' rate, and "
            "check the order when pairing a list of rates with groups: print "
            "[(g['lr'], len(g['params'])) for g in optimizer.param_groups].")


RATE_CUT_BEFORE_RUN = 20     # [design] the same 1/20 as LR_TOO_LOW's "a schedule cut the rate
                             # to 1/20 by mid-run": a group starting at 1/20 or less of the rate
                             # its constructor was given has been cut (a warm-up that starts
                             # lower climbs back, and is left alone)
RATE_HELD_TOLERANCE = 1e-6   # [design] relative slack of "the rate never rose above its start"


def _rate_cut_before_fresh_run(ctx):
    """(real-bug batch 100) LR_TOO_LOW when a run from fresh weights (its first losses at
    ln(C), ``curve.starts_fresh``) starts at RATE_CUT_BEFORE_RUN times or more below the rate
    the optimizer was built with (``run.observed.optimizer_settings``: ``lr`` against
    ``built_with_lr``) and the rate never climbs back during the run: an optimizer and its
    scheduler reused from an earlier fold or trial, whose plateaus or decay had already cut
    the rate ("Fix the issue for cross_validation with ReduceLROnPlateau",
    https://github.com/frankkramer-lab/MIScnn/pull/71). A resumed run starts from trained
    weights (far below ln(C)) and a warm-up climbs: both left alone. Asked only when
    learning is poor."""
    settings = getattr(ctx.run.observed, "optimizer_settings", None) or []
    if not settings or any(not (s.lr and s.built_with_lr and s.lr > 0) for s in settings):
        return None
    cut = min(s.built_with_lr / s.lr for s in settings)
    if cut < RATE_CUT_BEFORE_RUN:
        return None
    start = max(s.lr for s in settings)
    lrs = _learning_rates(ctx)
    if lrs and lrs[-1] > start * (1 + RATE_HELD_TOLERANCE):
        return None
    fresh = starts_fresh(ctx)
    if fresh is None:
        return None
    first, chance = fresh
    return Finding(
        code="LR_TOO_LOW", severity="warning", step=ctx.first_step,
        message=f"The optimizer was built with lr={settings[0].built_with_lr:.3g} but this run "
                f"starts at {start:.3g} ({cut:.3g} x lower) from fresh weights (first losses "
                f"{first:.3g}, ln(C) = {chance:.3g}), the rate never climbs back, and the loss "
                "is not improving: a scheduler cut the rate before the run began - an optimizer "
                "and scheduler reused from an earlier cross-validation fold or search trial "
                "(a ReduceLROnPlateau's cuts stay with the optimizer).",
        evidence={"built_with_lr": settings[0].built_with_lr, "starting_lr": start,
                  "times_lower": cut, "threshold": RATE_CUT_BEFORE_RUN,
                  "first_losses_median": first, "chance_loss": chance,
                  "learning_rates": lrs[:5] + ([lrs[-1]] if len(lrs) > 5 else [])},
        fix="Build the optimizer and its scheduler inside the fold (or trial) loop, after the "
            "model is re-initialised, so each run starts at the rate it was meant to.")


def _steps_proportional(ctx):
    """Whether every optimizer watch saw steps in proportion to the gradient
    (PROPORTIONAL_OPTIMIZERS: a scaled gradient scales the step); False when none was seen."""
    settings = getattr(ctx.run.observed, "optimizer_settings", None) or []
    return bool(settings) and all(s.type in PROPORTIONAL_OPTIMIZERS for s in settings)


def _loss_divided_per_step(ctx):
    """(real-bug batch 74) LR_TOO_LOW when the optimizer steps of the first recorded steps got
    a small share of the mean loss's gradient (``run.observed.loss_weights``: the summed
    weight backward gave one loss module's calls since the previous optimizer step) and the
    optimizer's step is proportional to the gradient: the learning rate in effect is the set
    one times that weight. None otherwise (an Adam-like optimizer divides the scale out)."""
    weights = [w for _, w in getattr(ctx.run.observed, "loss_weights", None) or []]
    settings = getattr(ctx.run.observed, "optimizer_settings", None) or []
    if len(weights) < MIN_WEIGHED_STEPS or not _steps_proportional(ctx):
        return None
    weight = float(np.median(weights))
    if not 0 < weight < LOSS_WEIGHT_LOW:
        return None
    return Finding(
        code="LR_TOO_LOW", severity="warning", step=ctx.first_step,
        message=f"Each optimizer step gets only {weight:.3g} of the mean loss's gradient (the "
                "losses back-propagated since the previous step carry that weight; dividing "
                "each micro-batch's loss by the number accumulated gives 1): for "
                f"{settings[0].type} the learning rate in effect is {weight:.3g} x the one set, "
                "and the loss is not improving. A loss divided by the accumulation count twice "
                "(by the training step, then by the trainer) does this.",
        evidence={"loss_weight_per_step": weight, "threshold": LOSS_WEIGHT_LOW,
                  "weights": weights[:8], "learning_rates": _learning_rates(ctx)[:5]},
        fix="Divide each micro-batch's loss by the number of accumulated micro-batches once (a "
            "trainer that normalises by accumulate_grad_batches already does: return the full "
            "loss), or raise the learning rate by 1/weight.")


def _fast_then_stalled_at_a_steady_rate(ctx):
    """The first updates rewrote a tenth of some weight tensor or more (LR_HIGH_RATIO) and no
    group's rate fell by 10x since: the rate is not too low, the updates shrank because the
    gradients did (a sigmoid network pushed to its flat ends by a rate of 10,
    https://github.com/rasmusbergpalm/DeepLearnToolbox/issues/12). A rate that was
    scheduled down (or whose groups are unknown) keeps the verdict."""
    _, early_layer, _ = _ratio_summary(ctx)
    rates = _group_rates(ctx)
    if early_layer is None or rates is None or float(np.nanmax(early_layer)) < LR_HIGH_RATIO:
        return False
    return all(b >= STEADY_RATE_SHARE * a for a, b in zip(*rates))


def _group_rates(ctx):
    """(first, last) learning rate of each parameter group over the judged records, or None
    when the records do not know them (or the number of groups changed)."""
    known = [r.lrs for r in ctx.records if r.lrs]
    if len(known) < 2 or len(known[0]) != len(known[-1]):
        return None
    return list(known[0]), list(known[-1])


def collapsed_group_rates(ctx, ratios, live, held):
    """LR_TOO_LOW for some layers only: the learning rate of some parameter groups fell by
    more than LR_COLLAPSE during the run, and layers that learned at first (an update above
    LR_LOW_RATIO of their size in the first records) stopped moving, while the loss stopped
    improving. The other groups still train, so the whole-model verdict above misses it.
    Public report: a layer-wise decay applied at every step instead of once
    (https://github.com/jaehyunnn/ViTPose_pytorch/issues/20)."""
    rates = _group_rates(ctx)
    if rates is None:
        return None
    first, last = rates
    collapsed = [g for g, (a, b) in enumerate(zip(first, last)) if a > 0 and b < LR_COLLAPSE * a]
    if not collapsed:
        return None
    early = np.arange(len(ratios)) < max(1, min(len(ratios), EARLY_RECORDS))
    stalled = []
    for j in range(ratios.shape[1]):
        learned = ratios[early, j]
        learned = learned[np.isfinite(learned)]
        if not held[j] or not live[:, j].any() or not learned.size:
            continue
        if learned.max() >= LR_LOW_RATIO and median(ratios[live[:, j], j].tolist()) < LR_LOW_RATIO:
            stalled.append(ctx.run.params[ctx.weights[j]].name)
    if not stalled:
        return None
    shown = collapsed[0]
    return Finding(
        code="LR_TOO_LOW", severity="warning", where=", ".join(modules(stalled)),
        step=ctx.first_step,
        message=f"The learning rate of {len(collapsed)} of {len(first)} parameter group(s) fell "
                f"during the run (group {shown}: from {first[shown]:.1e} to {last[shown]:.1e}), "
                f"and the layers that learned at first stopped changing ({short_list(stalled)}: "
                f"updates below {LR_LOW_RATIO:.0e} of their size per step) while the loss stopped "
                "improving: something multiplies those learning rates again on every step (a "
                "layer-wise decay applied at each step instead of once, a scheduler stepped per "
                "batch).",
        evidence={"collapsed_groups": collapsed, "first_learning_rates": first[:8],
                  "last_learning_rates": last[:8], "stalled_layers": stalled,
                  "threshold": LR_LOW_RATIO, "collapse_factor": LR_COLLAPSE},
        fix="Scale each group's learning rate once, when the optimizer is built (layer-wise "
            "decay), and step schedulers at the interval they were written for; print "
            "optimizer.param_groups[i]['lr'] during training to check.")


def slow_at_chance(ctx, fastest):
    """LR_TOO_LOW when a classifier's loss has not left chance level, gradients arrive,
    nothing else explains it, and even the fastest-changing layer moves less than the
    healthy HEALTHY_RATIO of its size per step: the weights do move, too little to get
    anywhere in this run. (With updates at or above HEALTHY_RATIO and the loss still at
    chance, LOSS_AT_CHANCE suspects the labels instead.) Public report: the weight decay
    passed as the learning rate (https://github.com/offbit/evo-design/issues/3)."""
    if fastest >= HEALTHY_RATIO or not at_chance(ctx):
        return None
    if any(code in ctx.found and ctx.found[code].severity != "info"
           for code in SLOW_AT_CHANCE_OTHER_CAUSES):
        return None
    lrs = _learning_rates(ctx)
    return Finding(
        code="LR_TOO_LOW", severity="warning", step=ctx.first_step,
        message=f"The loss has not left chance level, and even the fastest-changing layer moves "
                f"only {fastest:.1e} of its weight size per step (healthy is about 1e-3): the "
                "weights change too slowly to get anywhere in this run; the learning rate "
                f"({', '.join(f'{lr:.1e}' for lr in lrs[:3]) or 'unknown'}) is too low (was "
                "another value - a weight decay, a momentum - passed as lr?).",
        evidence={"update_to_weight_max_layer": fastest, "healthy_ratio": HEALTHY_RATIO,
                  "learning_rates": lrs[:5], "at_chance": True},
        fix="Raise the learning rate (try 10x steps; nndebug.find_lr suggests one) and check "
            "the optimizer's arguments: SGD(params, lr=..., momentum=..., weight_decay=...).")


def flat_with_short_steps(ctx, fastest):
    """(real-bug batch 209) LR_TOO_LOW for a loss that is not a classifier's at chance (the
    slow-at-chance verdict above reads those): the loss gained almost nothing beyond its noise
    over the whole run (under FLAT_GAIN of its start), gradients arrive, nothing else found
    explains a loss that does not fall (SLOW_AT_CHANCE_OTHER_CAUSES), and even the fastest
    layer moves under FLAT_MAX_RATIO of its size a step: the regression's slow-at-chance.
    Public report: DragonNet's SGD stage built with a hard-coded lr=1e-5 that ignores the
    user's rate (https://github.com/uber/causalml/issues/600)."""
    s = ctx.summary
    if s is None or fastest >= FLAT_MAX_RATIO or at_chance(ctx):
        return None
    # an Adam-like optimizer moves each weight by about the rate a step, whatever its
    # gradient: a step under FLAT_MAX_RATIO of the weights then says only that the rate is
    # small, as in every fine-tuned or resumed run - a Glow flow resumed from its converged
    # checkpoint at Adam 3e-4 gained 3% and moved 4e-4 a step (batch 109's healthy twin).
    # Under one, only a run with somewhere to go is judged: a fresh classifier, its first
    # losses at chance or above (batch 210's GPT at AdamW 1e-6: 1.5e-4 a step, loss at
    # 4.3 against ln C = 4.1). A step proportional to the gradient (SGD) that small is the
    # rate times a gradient
    if not _steps_proportional(ctx) and starts_fresh(ctx) is None:
        return None
    if any(code in ctx.found and ctx.found[code].severity != "info"
           for code in SLOW_AT_CHANCE_OTHER_CAUSES):
        return None
    gained = gained_beyond_noise(_from_first_loss(ctx, s), cross_entropy_chance(ctx),
                                 entropy_floor(ctx))
    if gained > FLAT_GAIN:
        return None
    lrs = _learning_rates(ctx)
    rates = ", ".join(f"{lr:.1e}" for lr in lrs[:3]) or "unknown"
    return Finding(
        code="LR_TOO_LOW", severity="warning", step=ctx.first_step,
        message=f"The loss has gained almost nothing beyond its noise since its first steps "
                f"({gained:.0%} of its start), and even "
                f"the fastest-changing layer moves only {fastest:.1e} of its weight size per "
                "step (healthy is about 1e-3): the weights change too slowly to get anywhere "
                f"in this run; the learning rate ({rates}) is too low (a rate hard-coded where "
                "the user's was meant?).",
        evidence={"update_to_weight_max_layer": fastest, "healthy_ratio": HEALTHY_RATIO,
                  "threshold": FLAT_MAX_RATIO, "gained": gained, "learning_rates": lrs[:5]},
        fix="Raise the learning rate (try 10x steps; nndebug.find_lr suggests one) and check "
            "that the optimizer is built with the rate you pass.")


def still_falling(ctx, fastest):
    """(real-bug batch 84) LR_TOO_LOW when learning is poor (the caller asks) and either
    (a) the loss is still falling at the end, by more than the windows' noise over the last
    third of the run, at DESCENT_PACE_KEPT or more of the pace it fell at over the first
    third - no bend: the steps are too short to get anywhere in this run, and the fastest
    layer's update (``fastest``, the median update/weight ratio over the run's second half)
    is under STILL_FALLING_MAX_RATIO: a healthy run cut short also still falls, with bigger
    steps - or (b) a schedule
    cut every group's rate to RATE_CUT_SHARE of its start by the run's middle, and the loss
    was falling beyond the noise in the first or the last third (it learned while the rate
    was there). (a) alone is an info note, (b) a warning (why: the comment at ``kept``).
    Nothing else found that keeps a
    loss from falling (SLOW_AT_CHANCE_OTHER_CAUSES). Public reports: a Darknet-style rate
    divided by the batch on a loss already averaged over it
    (https://github.com/andy-yun/pytorch-0.4-yolov3/issues/46); Keras' time decay counted in
    batches (https://github.com/keras-team/keras/issues/8086)."""
    s = ctx.summary
    if s is None:
        return None
    medians = s["medians"]
    third = len(medians) // 3
    if third < 2:
        return None
    if any(code in ctx.found and ctx.found[code].severity != "info"
           for code in SLOW_AT_CHANCE_OTHER_CAUSES):
        return None
    early = float(medians[0] - medians[third])
    late = float(medians[-1 - third] - medians[-1])
    noise = NOISE_SIGMAS * s["window_error"] * np.sqrt(2)    # a difference of two windows
    rates = _group_rates(ctx)
    middle = [(r.step, r.lrs) for r in ctx.records
              if r.lrs and r.step >= ctx.run.n_steps // 2][:1]
    cut = rates is not None and bool(middle) and len(middle[0][1]) == len(rates[0]) and \
        all(a > 0 and b <= RATE_CUT_SHARE * a for a, b in zip(rates[0], middle[0][1]))
    # (a) alone is a note, not a warning: a loop that copied a slow rate on purpose (SGD 0.01
    # with momentum 0.5, relu_before_softmax's fixed twin: 1.9e-3 a step, pace 1.19) draws the
    # same curve as a rate divided by the batch by mistake (1.4e-3, pace 1.26): the advice
    # holds for both, the bug is told apart by nothing the run shows
    kept = late > noise and early > 0 and late >= DESCENT_PACE_KEPT * early and \
        fastest < STILL_FALLING_MAX_RATIO
    cut = cut and max(early, late) > noise     # it fell while the rate was there to fall by
    if not (kept or cut):
        return None
    lrs = _learning_rates(ctx)
    why = (f"a schedule cut the learning rate to {middle[0][1][0] / rates[0][0]:.1%} of where "
           f"it started by step {middle[0][0]} of {ctx.run.n_steps} (from {rates[0][0]:.2g}; "
           f"{rates[1][0]:.2g} at the end) while the loss was falling" if cut else
           "the loss falls as fast at the end as at the start: the steps are too short to get "
           "anywhere in this run")
    return Finding(
        code="LR_TOO_LOW", severity="warning" if cut else "info", step=ctx.first_step,
        message=f"The loss gained only {s['improvement']:.0%} ({late:.3g} over the last third "
                f"of the run, {early:.3g} over the first): "
                f"{why}. The learning rate in effect is too low (a rate divided by the batch "
                "size on a loss already averaged over it, a decay counted in batches that was "
                "meant per epoch, a rate meant for another optimizer's convention).",
        evidence={"improvement": s["improvement"], "late_drop": late, "early_drop": early,
                  "pace_kept": DESCENT_PACE_KEPT, "rate_cut": bool(cut),
                  "learning_rates": lrs[:3] + ([lrs[-1]] if len(lrs) > 3 else [])},
        fix="Raise the learning rate in effect (try 10x steps; nndebug.find_lr suggests one): "
            "divide it by the batch size only for a loss summed over the batch, count a "
            "decay's time in the unit it was chosen for, and step schedulers at that interval.")
