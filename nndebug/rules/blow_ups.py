"""Rules about numbers blowing up: huge activations, exploding gradients, NaN/Inf in the
loss or the gradients.

Among NaN findings the earlier one is the cause (``link_causes``); the other rules look only
before the first non-finite step (``Context.records``), because everything after is a
consequence.
"""
import math

import numpy as np

from ..findings import Finding
from .context import fmt, last_level, median, module_of, names, rms, scale_free_optimizer
from .curve import adversarial_turns, calm_before_nan, diverging, learning_poor
from .graph import rule

EXPLODING_ACTIVATION_RMS = 1e3  # [measured] activation root-mean-square; unit-scale layers sit near 1
                                # (Kaiming/Glorot keep it ~1 [glorot]); 1e3 is far out [measured]
EXPLODING_RATIO = 1e3         # [deepdiag] first/last layer relative gradient norm, the mirror image
                              # of VANISHING_RATIO
EXPLODING_GROWTH = 1e3        # gradient norm growth over the run (late / early) [pascanu]
EXPLODING_GROWTH_DIVERGING = 20.0  # [measured] the same growth where the loss itself diverged
                              # (rose well above its best, curve.diverging): the gradients grew
                              # with it. An unclipped GRU over 64 pixels at SGD lr 1: 47x by its
                              # blow-up's records; its clipped twin never diverges. A loss that
                              # rises with gradients of the size they had (a drifting target)
                              # stays under it. Not for a side of a game (curve.adversarial_turns):
                              # a healthy cGAN generator with cross-entropy losses (real-bug batch
                              # 120) climbs 0.7 -> 3 with its gradient grown 218x
EXPLODING_GRAD_TO_WEIGHT = 10.0  # [measured] |grad| / |weight| per layer at the first step:
                                 # healthy networks start around 0.01-0.1; at 10 one SGD
                                 # step with lr 0.1 moves every weight by its own size. Not
                                 # read under Adam, RMSprop and their kin (real-bug batch 256):
                                 # they step by about lr whatever the gradient's size, so a
                                 # loss summed over 40 time steps of an episode is no blow-up
SPIKE_BEFORE_NAN = 10.0       # [design] largest / median gradient norm: a spike before a NaN
CLIP_PERCENTILE = 90          # suggested clip: 90th percentile of the observed norms [pascanu]
                              # (clip at a value above typical norms, below the spikes)


@rule(produces="EXPLODING_ACTIVATIONS", reads={"EXPLODING_GRADIENTS"},
      explains={"NAN_LOSS", "NAN_GRADIENTS", "LOSS_DIVERGING", "EXPLODING_GRADIENTS", "DEAD_RELU"})
def exploding_activations(ctx):
    """EXPLODING_ACTIVATIONS: a layer's outputs grow by orders of magnitude during training."""
    worst, first = None, None     # the layer with the largest typical RMS; the first huge one
    for layer in ctx.run.layers:
        values = [rms(r.activations[layer.name]) for r in ctx.records
                  if "std" in r.activations.get(layer.name, {})]
        values = [v for v in values if v is not None]
        if not values:
            continue
        if first is None and any(v > EXPLODING_ACTIVATION_RMS for v in values):
            first = layer.name
        typical = float(median(values))
        if typical > EXPLODING_ACTIVATION_RMS and (worst is None or typical > worst[1]):
            worst = (layer.name, typical)
    if worst is None:
        return None
    first_record = next((r for r in ctx.records if r.activations), None)
    from_start = first_record is not None and any(
        (rms(st) or 0.0) > EXPLODING_ACTIVATION_RMS
        for st in first_record.activations.values() if "std" in st)
    exploding = ctx.found.get("EXPLODING_GRADIENTS")
    gradients_first = exploding is not None and exploding.evidence.get("from_start")
    return Finding(
        code="EXPLODING_ACTIVATIONS", severity="warning", where=first, step=ctx.first_step,
        message=f"Activations are huge: layer {worst[0]} has root-mean-square {fmt(worst[1])} "
                f"(unit-scale layers sit near 1); it starts at {first}.",
        evidence={"worst_layer": worst[0], "rms": worst[1], "first_layer": first,
                  "threshold": EXPLODING_ACTIVATION_RMS, "from_start": from_start,
                  **({"likely_cause": "EXPLODING_GRADIENTS"} if gradients_first and not from_start
                     else {})},
        fix="Use a variance-preserving initialisation (Kaiming for ReLU, Glorot for tanh), "
            "normalise the inputs, or add normalisation layers.")


@rule(produces="EXPLODING_GRADIENTS",
      explains={"NAN_LOSS", "NAN_GRADIENTS", "LOSS_DIVERGING", "LOSS_OSCILLATING", "DEAD_RELU"})
def exploding_gradients(ctx):
    """EXPLODING_GRADIENTS: gradients far larger than the weights they update, or growing step
    after step."""
    profile = ctx.layer_grad_profile()
    g = ctx.matrix("grad_norm")
    total = np.sqrt(np.nansum(np.where(np.isfinite(g), g, np.nan) ** 2, axis=1)) if g.size else g
    total = total[np.isfinite(total) & (total > 0)] if total.size else np.zeros(0)
    reasons, evidence = [], {}
    first = next((r for r in ctx.records if r.backward), None)
    width = len(ctx.run.params)
    # (real-bug batch 82) a weight that started all zero (LoRA's B, an adapter's zero
    # up-projection) is one update old at the first record: its gradient/weight ratio there
    # measures the learning rate's first step, not the gradient
    zero_start = {row[0] for row in
                  getattr(ctx.run.observed, "zero_start_parameters", None) or []}
    compared = [i for i in ctx.weights if ctx.run.params[i].name not in zero_start] \
        if zero_start else ctx.weights
    if first is not None and compared and not scale_free_optimizer(ctx) and all(
            v is not None and len(v) == width for v in (first.grad_norm, first.param_norm)):
        with np.errstate(all="ignore"):
            rel = np.asarray(first.grad_norm, float)[compared] / \
                np.asarray(first.param_norm, float)[compared]
        rel = rel[np.isfinite(rel)].tolist()
        typical = median(rel)         # np.median's value, in plain Python (a few tensors)
        if rel and typical > EXPLODING_GRAD_TO_WEIGHT:
            evidence["grad_to_weight_first_step"] = float(typical)
            evidence["from_start"] = True
            reasons.append(f"at the first step the gradients are {typical:.0f} times "
                           "larger than the weights themselves")
    if profile is not None:
        ratio = float(profile[0]) / last_level(ctx, profile)
        evidence["first_over_last"] = ratio
        if ratio > EXPLODING_RATIO:
            reasons.append(f"the first layer's gradient is {ratio:.1e} times the last layer's")
    if total.size >= 3:
        early = float(median(total[: max(1, min(3, total.size // 3))].tolist()))
        growth = float(np.max(total) / early) if early > 0 else float("inf")
        evidence["growth_over_run"] = growth
        if growth > EXPLODING_GROWTH:
            reasons.append(f"the gradient norm grew {growth:.1e} times during the run")
        elif growth > EXPLODING_GROWTH_DIVERGING and diverging(ctx) is not None and \
                not adversarial_turns(ctx):    # a generator's loss climbs as its rival learns
            evidence["grew_while_diverging"] = True
            reasons.append(f"the gradient norm grew {growth:.0f} times while the loss "
                           "climbed away from its best")
    blew = not all(ctx.grads_finite) or ctx.first_nan_step is not None
    if blew and total.size and not reasons:
        if np.max(total) / np.median(total) > SPIKE_BEFORE_NAN:
            reasons.append("the gradient norm spiked before the run turned NaN")
    if not reasons:
        return None
    clip = _clip_suggestion(total)
    evidence.update({"suggested_clip_norm": clip,
                     "observed_norms_median": float(np.median(total)) if total.size else None,
                     "observed_norms_max": float(np.max(total)) if total.size else None})
    poor = learning_poor(ctx)
    weight_names = names(ctx.run, ctx.depth_weights or ctx.weights)
    return Finding(
        code="EXPLODING_GRADIENTS", severity="warning" if poor else "info",
        where=module_of(weight_names[0]) if weight_names else "", step=ctx.first_step,
        message="Gradients explode: " + "; ".join(reasons) + ".",
        evidence=evidence,
        fix=f"Clip the gradient norm (e.g. clip_grad_norm_(params, max_norm={fmt(clip)}), the "
            f"{CLIP_PERCENTILE}th percentile of the norms seen before the blow-up), lower the "
            "learning rate, check the scale of the loss (standardise regression targets; mean, "
            "not sum, over the batch) and of the initialisation (He/Glorot), or add "
            "normalisation.")


def _clip_suggestion(norms):
    """The CLIP_PERCENTILE-th percentile of the norms, leaving out the blow-up itself (norms
    above 10x the early ones)."""
    norms = np.asarray(norms, float)
    if norms.size == 0:
        return None
    early = np.median(norms[: max(1, min(5, norms.size))])
    calm = norms[norms <= 10 * early] if early > 0 else norms
    return float(np.percentile(calm if calm.size else norms, CLIP_PERCENTILE))


@rule(produces="NAN_LOSS", explains={"NAN_GRADIENTS"})
def nan_loss(ctx):
    """NAN_LOSS: the loss became NaN or Inf; the finding names the first step and what went before
    it."""
    if ctx.first_nan_step is None:
        return None
    step = ctx.first_nan_step
    steps, losses = ctx.loss_steps, ctx.losses
    before = losses[(steps < step) & np.isfinite(losses)]
    evidence = {"first_nan_step": step, "nan_steps": int((~np.isfinite(losses)).sum()),
                "last_finite_losses": before[-5:].tolist()}
    grew = len(before) >= 2 and before[-1] > 10 * max(np.min(before), 1e-12) and \
        before[-1] > before[0]
    if grew:
        evidence["growth_before_nan"] = float(before[-1] / max(np.min(before), 1e-12))
    # the first layer whose activations were non-finite, from the step before the NaN loss on
    bad_layer = next((name for r in ctx.all_records if r.step >= step - 1
                      for name, stats in r.activations.items()
                      if not math.isfinite(stats.get("mean", 0.0))), None)
    if bad_layer is not None:
        evidence["first_nonfinite_layer"] = bad_layer
    calm = not grew and calm_before_nan(ctx)
    if calm:
        evidence["out_of_a_calm_run"] = True
    message = f"The loss became NaN/Inf at step {step}"
    message += (" after growing fast: the training blew up" if grew else
                " out of a steady, falling loss with small updates: no blow-up; one "
                "operation made it, in that step's forward (log of 0, 0/0) or in the "
                "backward of the step before (sqrt or norm at 0)" if calm else "") + "."
    return Finding(
        code="NAN_LOSS", severity="error", where=bad_layer or "", step=step,
        message=message, evidence=evidence,
        fix="Lower the learning rate and/or clip gradients; check the loss for log(0) or "
            "division by zero (use log-softmax / logits-based losses, add eps), and the data "
            "for NaN.")


@rule(produces="NAN_GRADIENTS", explains={"NAN_LOSS"})
def nan_gradients(ctx):
    """NAN_GRADIENTS: gradients became NaN or Inf."""
    run = ctx.run
    for r, finite in zip(ctx.all_records, ctx.grads_finite):
        if finite:
            continue
        norms = np.asarray(r.grad_norm, float)
        bad = [i for i in np.flatnonzero(r.grad_received) if not np.isfinite(norms[i])]
        # the NaN enters backward at the parameter closest to the output that has it
        where = run.params[max(bad)].name if max(bad) < len(run.params) else f"#{max(bad)}"
        loss = ctx.loss_by_step.get(r.step)
        return Finding(
            code="NAN_GRADIENTS", severity="error", where=module_of(where), step=r.step,
            message=f"Gradients of {len(bad)} parameter tensor(s) are NaN/Inf at step {r.step}, "
                    f"first (nearest the output) in {where}" +
                    (" while the loss was still finite" if loss is not None and np.isfinite(loss)
                     else "") + "; one such update turns the weights into NaN.",
            evidence={"parameters": names(run, [i for i in bad if i < len(run.params)]),
                      "loss_at_step": loss,
                      "finite_loss": bool(loss is not None and np.isfinite(loss))},
            fix="Look for an operation with an infinite derivative in that layer's forward: sqrt "
                "or norm at 0, log/pow near 0, division by a tiny number; add an eps "
                "(sqrt(x + 1e-12)) or use the library's stable version; clip gradients as a "
                "safety net.")
    return None
