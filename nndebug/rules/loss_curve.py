"""Rules that report what the loss curve says: diverging, at chance, oscillating, on a
plateau, overfitting. The verdicts themselves are computed in ``curve.py``.

The loss curve ranks last among causes: it shows that something is wrong, and the rules
before it say what.
"""
import math

import numpy as np

from ..findings import Finding
from .context import fmt, observed_list, restored_checkpoint
from .curve import (OSCILLATION_REL, OSCILLATION_SIGMAS, adversarial_turns, at_chance, diverging,
                    loss_through_rival, loss_without_level, oscillation, plateaued)
from .graph import rule
from .moving_targets import targets_moved_up   # real-bug batch 44

OVERFIT_RISE = 0.1            # [playbook] validation 10% above its best while training keeps
                              # falling (pick the checkpoint at the best validation loss)
MIN_VAL_POINTS = 5            # [design] validation losses needed before judging overfitting
OVERFIT_NOISE_SIGMAS = 3.0    # [design] the rise must also stand 3 sigmas above the validation
                              # passes' own noise: 200 held-out digits gave passes 0.03-0.11
                              # apart, and an early-stopped run's last window sat 18% (1.2
                              # sigmas) above its best (core variants 5, seeds shifted by 2000)
GAME_RISE = 1.0               # [design] a discriminator's loss that takes turns with a
                              # generator (adversarial_turns) climbs back towards where it
                              # started as the generator learns (a BCE discriminator on a
                              # 2-D ring of 8 Gaussians: 1.16 at the start, best 1.00, end
                              # 1.27, the game's balance 2 ln 2 = 1.39; core variants 5);
                              # a rise of more than its starting size above the start is more
                              # than the game explains and is still named
GAME_RIVAL_RISE = 6.9         # [design] the rise a generator's loss may take (its loss goes
                              # through its rival, curve.loss_through_rival): -ln(0.001), a
                              # discriminator that calls the fakes fake with 99.9% confidence.
                              # Healthy cGANs on the digits with cross-entropy losses (real-bug
                              # batch 120's reports; seeds 0-5, 3,000 steps) climbed from
                              # 0.8-2.6 to window medians of 3.7-4.6, then fell back to 1.1-1.2
SAME_SET_TOLERANCE = 1e-6     # [design] relative difference of two validation passes' float64
                              # totals that is still one set: the same values summed in another
                              # order (a shuffled loader) differ by float64 rounding, ~1e-16

# the causes that, when found (as more than "info"), explain a loss stuck at chance level
CHANCE_CAUSES = ("DOUBLE_SOFTMAX", "DEAD_RELU", "LR_TOO_LOW", "VANISHING_GRADIENTS",
                 "PARAMS_NOT_UPDATING", "OPTIMIZER_MISSING_PARAMS", "NO_GRADIENT",
                 "SATURATED_ACTIVATIONS", "COLLAPSED_ACTIVATIONS", "CONSTANT_INPUTS",
                 "LR_TOO_HIGH")


@rule(produces="LOSS_DIVERGING")
def loss_diverging(ctx):
    """LOSS_DIVERGING: the loss rises and stays above where it started."""
    step = diverging(ctx)
    if step is None or loss_without_level(ctx) or targets_moved_up(ctx):   # batches 44, 130
        return None
    s = ctx.summary
    if adversarial_turns(ctx) and s["end"] - s["start"] <= _game_allowance(ctx, s):
        return None     # one side of a game climbing back as the other learns (variants 5)
    return Finding(
        code="LOSS_DIVERGING", severity="warning", step=step,
        message=f"The loss is rising well above its best: it ended at {fmt(s['end'])} after "
                f"reaching {fmt(s['best'])} (window medians; minibatch noise {fmt(s['noise'])}).",
        evidence={"start": s["start"], "best": s["best"], "end": s["end"], "noise": s["noise"]},
        fix="Lower the learning rate (or add warm-up/decay); clip gradients; check for a missing "
            "zero_grad.")


def _game_allowance(ctx, s):
    """How far one side of a game may climb above its start: a discriminator GAME_RISE of
    its start, a generator (its loss goes through its rival) GAME_RIVAL_RISE."""
    rival = GAME_RIVAL_RISE if loss_through_rival(ctx) else 0.0
    return max(GAME_RISE * abs(s["start"]), rival)


@rule(produces="LOSS_AT_CHANCE", reads=set(CHANCE_CAUSES))
def loss_at_chance(ctx):
    """LOSS_AT_CHANCE: a classifier's loss stays at chance level (ln of the number of classes)."""
    if not at_chance(ctx):
        return None
    s = ctx.summary
    chance = math.log(ctx.classes)
    others = [c for c in CHANCE_CAUSES if c in ctx.found and ctx.found[c].severity != "info"]
    if others:
        message = (f"The loss stays at chance level ({fmt(s['end'])} vs ln({ctx.classes}) = "
                   f"{chance:.3f}): the model predicts a uniform guess (see {others[0]}).")
        fix = "Fix the causes listed above first."
    else:
        message = (f"The loss stays at chance level ({fmt(s['end'])} vs ln({ctx.classes}) = "
                   f"{chance:.3f}) although the weights update and gradients flow normally: the "
                   "model could fit these batches, so the labels probably do not belong to the "
                   "inputs.")
        fix = ("Check that labels are aligned with their inputs: shuffle x and y with the same "
               "permutation, keep the same order after filtering/sorting, and check the label "
               "mapping; then check that the model can overfit one batch "
               "(nndebug.overfit_one_batch).")
    return Finding(code="LOSS_AT_CHANCE", severity="warning", step=int(ctx.curve_steps[0]),
                   message=message,
                   evidence={"loss_end": s["end"], "loss_best": s["best"], "chance": chance,
                             "classes": ctx.classes, "other_causes": others},
                   fix=fix)


@rule(produces="LOSS_OSCILLATING")
def loss_oscillating(ctx):
    """LOSS_OSCILLATING: the loss swings far more than the noise of its mini-batches explains."""
    seen = oscillation(ctx)
    if seen is None or loss_without_level(ctx):   # real-bug batches 44, 130
        return None
    swing, allowed, batch, spikes, n = (seen[k] for k in ("swing", "allowed", "batch",
                                                          "spikes", "n"))
    evidence = {"swing_over_start": swing, "allowed_swing": allowed, "batch_size": batch,
                "spikes": len(spikes), "spike_steps": ctx.curve_steps[spikes][:20].tolist(),
                "steps": n}
    if swing > allowed:
        message = (f"The loss swings up and down by {swing:.0%} of its starting value from step "
                   f"to step (minibatch noise at batch size {batch or '?'} explains up to about "
                   f"{allowed:.0%}): updates overshoot, or batches differ systematically (data "
                   "not shuffled).")
        step = int(ctx.curve_steps[n // 3])
    else:
        message = (f"The loss jumps far above its running level {len(spikes)} times in {n} steps "
                   f"(each over {OSCILLATION_SIGMAS:.0f}x the minibatch noise and over "
                   f"{seen.get('spike_rel', OSCILLATION_REL):.0%} of the starting loss): "
                   "updates overshoot.")
        step = int(ctx.curve_steps[spikes[0]])
    return Finding(
        code="LOSS_OSCILLATING", severity="warning", step=step, message=message,
        evidence=evidence,
        fix="Shuffle the training data every epoch (batches sorted by class swing the loss); "
            "lower the learning rate or raise the batch size; clip gradients if single batches "
            "cause the spikes.")


@rule(produces="LOSS_PLATEAU", reads={"LOSS_AT_CHANCE"})
def loss_plateau(ctx):
    """LOSS_PLATEAU: the loss stopped falling early, far above where it should end."""
    if "LOSS_AT_CHANCE" in ctx.found or not plateaued(ctx) or adversarial_turns(ctx):
        return None     # at chance is the more specific verdict
    s = ctx.summary
    gained = s["start"] - s["tail"]
    change = abs(gained) / max(abs(s["start"]), 1e-12)
    direction = "below" if gained >= 0 else "above"
    return Finding(
        code="LOSS_PLATEAU", severity="warning", step=int(ctx.curve_steps[0]),
        message=f"The loss is not improving: over {s['n']} steps it ends only {change:.1%} "
                f"{direction} where it started ({fmt(s['start'])} -> {fmt(s['tail'])}).",
        evidence={"start": s["start"], "best": s["best"], "end": s["end"], "noise": s["noise"],
                  "improvement": s["improvement"]},
        fix="Check the learning rate (nndebug.find_lr), that the optimizer holds the model's "
            "parameters, and that the model can overfit one batch (nndebug.overfit_one_batch).")


@rule(produces="OVERFITTING")
def overfitting(ctx):
    """OVERFITTING: the validation loss rises while the training loss keeps falling."""
    steps, val = ctx.run.val_array()
    ok = np.isfinite(val)
    steps, val = steps[ok], val[ok]
    if len(val) < MIN_VAL_POINTS:
        return None
    n_windows = int(np.clip(len(val) // 2, 2, 10))
    windows = np.array_split(np.arange(len(val)), n_windows)
    med = np.array([np.median(val[w]) for w in windows])
    best = int(np.argmin(med))
    if best == len(med) - 1:
        return None
    rise = med[-1] - med[best]
    if rise <= OVERFIT_RISE * abs(med[best]):
        return None
    # the validation passes' own noise (a small validation set): the pass-to-pass spread
    # (robust, from consecutive differences), for the difference of two window medians
    spread = 1.4826 * float(np.median(np.abs(np.diff(val)))) / math.sqrt(2)
    if rise <= OVERFIT_NOISE_SIGMAS * spread * math.sqrt(2 / min(len(w) for w in windows)):
        return None
    train = ctx.curve
    tsteps = ctx.curve_steps
    at_best = train[tsteps <= steps[windows[best][-1]]]
    after = train[tsteps > steps[windows[best][-1]]]
    if len(at_best) < 3 or len(after) < 3 or np.median(after[-len(after) // 2:]) >= \
            np.median(at_best[-max(3, len(at_best) // 3):]):
        return None
    if validation_set_changed(ctx, steps[windows[best]], steps[windows[-1]]):
        return None
    step = int(steps[windows[best]][-1])
    # (real-bug batch 139) a best-checkpoint restore after the last validation put back
    # weights from near the best pass: the run answered its own over-fitting
    restored = restored_checkpoint(ctx)
    undone = restored is not None and restored["near_best"]
    return Finding(
        code="OVERFITTING", severity="info" if undone else "warning", step=step,
        message=f"The validation loss rose {rise / max(abs(med[best]), 1e-12):.0%} above its "
                f"best (around step {step}) while the training loss kept falling: the model "
                "memorises the training set." + (
                    f" The weights loaded after training are those of the validation pass at "
                    f"step {restored['restored_step']} (validation loss "
                    f"{restored['restored_val']:.3g}, best {restored['best_val']:.3g}): the "
                    "best checkpoint was restored." if undone else ""),
        evidence={"val_best": float(med[best]), "val_end": float(med[-1]), "best_step": step,
                  "restored_checkpoint": restored},
        fix="Keep the checkpoint with the best validation loss (early stopping), add data "
            "augmentation, weight decay or dropout, or use a smaller model.")


def validation_set_changed(ctx, best_steps, end_steps):
    """Whether the validation set was replaced between the passes at the best validation
    loss and those at the end (``monitor/validation_sets.py``): the run validates on a
    fixed set (some passes measured the same inputs), and none of the passes at the end
    measured the inputs of one at the best. The rise may then be the new set's, not
    memorising. A set drawn anew at every pass (random crops, a random subset each time)
    is a sample of one population, whose window medians OVERFITTING may still compare; and
    unknown passes (not fingerprinted) count as unchanged. Public report: a new
    train/validation split drawn for each stage of training
    (https://github.com/godardt/planet-amazon-deforestation/issues/12)."""
    rows = observed_list(ctx, "validation_sets")
    kept = {row[0]: row for row in rows}
    best = [kept[s] for s in np.asarray(best_steps).tolist() if s in kept]
    end = [kept[s] for s in np.asarray(end_steps).tolist() if s in kept]
    if not (best and end) or any(same_set(b, e) for b in best for e in end):
        return False
    return any(same_set(a, b) for a, b in zip(rows, rows[1:]))   # a fixed set, replaced


def same_set(first, second):
    """Whether two kept passes ``(step, rows, sum, sum of squares)`` measured the same
    inputs: as many rows, and both totals equal up to SAME_SET_TOLERANCE of their scale.
    A standardised set sums to about 0, so the sum is compared on the scale of its
    magnitudes: sqrt(rows x squares) (Cauchy-Schwarz bounds the sum of the absolute values
    by sqrt(values x squares); rows in place of values make the scale smaller, and the
    tolerance is still far above float64's rounding)."""
    (_, rows, total, squares), (_, other_rows, other_total, other_squares) = first, second
    if rows != other_rows:
        return False
    scale = max(squares, other_squares, 1e-300)
    if abs(squares - other_squares) > SAME_SET_TOLERANCE * scale:
        return False
    return abs(total - other_total) <= SAME_SET_TOLERANCE * (rows * scale) ** 0.5
