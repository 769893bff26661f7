"""WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER: between two optimizer steps something wrote the
model's weights, each time by many updates at once and back toward where they were steps
before (``run.observed.rewritten_weights``, ``monitor/rewritten_weights.py``).

Weights copied INTO the model being trained undo its training: an exponential moving
average copied in to save a checkpoint or to validate and never swapped back ("whenever
save_checkpoint() is called, the EMA parameters are copied to the UNet. However, the
original parameters are not restored", harubaru/waifu-diffusion#31), a target network
loaded into the online one (``policy.load_state_dict(target.state_dict())``), an earlier
checkpoint reloaded mid-run. After each such write the model restarts from the lagging
copy, and the run trains at the copy's pace. Nothing fails; the loss climbs back at each
write and descends again.

What the loop writes on purpose stays apart: clipping a critic's weights, a max-norm or
pruning mask, trim at most part of one update (the jump test); a Lookahead sync moves the
fast weights half-way back to the slow ones (the share test: half of the distance is left,
where an EMA copy leaves a fifth or less); evaluation with the average between a store and
a restore leaves the weights exactly as the optimizer left them (no write at all).
A saved state restored on a fixed period (``curve.saved_state_restores``: most writes land
exactly where the previous one put the weights) is a federated round's clients each
starting from the global weights, or an episode reset (real-bug batch 117: all five healthy
FedAvg loops drew this warning).

Written by other optimizers (real-bug batch 86): an evaluation or adaptation pass that
fine-tunes the model itself - ``SGD(model.parameters())`` stepped on each validation
episode's support set, not on ``copy.deepcopy(model)`` (dragen1860/MAML-Pytorch#6) - writes
the fine-tuning into the weights being trained, and training resumes from wherever the
last episode left them. Read from ``run.observed.shared_optimizers`` (the steps on which
optimizers other than one stepped the watched tensors, ``monitor/shared_optimizers.py``) and
the loss curve: such steps come in bursts on a minority of the steps (a second optimizer
over the same network every step is PARAMS_IN_TWO_OPTIMIZERS' two-network loop), and the
loss stands higher just after them than just before (a deliberate refit of a head, a
calibration pass, lowers it or leaves it).
"""
import numpy as np

from ..findings import Finding
from .context import observed_list
from .curve import WRITE_JUMP_UPDATES as REWRITE_JUMP_UPDATES, saved_state_restores
from .graph import rule

REWRITE_LEFT_SHARE = 0.35    # [design] the write leaves at most 35% of the distance the
                             # weights had travelled since the previous write: an EMA copy
                             # leaves 10-25%, Lookahead (alpha 0.5) 50%
REWRITE_MIN_WRITES = 2       # [design] writes that must show it: one can be a deliberate
                             # reload (a rollback after a NaN)
FINETUNE_MIN_BURSTS = 2      # [design] steps with other optimizers' writes that must show it
FINETUNE_MAX_STEP_SHARE = 0.34   # [design] those steps are at most a third of the steps they
                             # span (bursts: a validation pass every N steps); a second optimizer
                             # on every step (a GAN's wrong optimizer) is PARAMS_IN_TWO_OPTIMIZERS
FINETUNE_LOSS_WINDOW = 5     # [design] loss steps compared on each side of a burst
FINETUNE_RISE_ERRORS = 3.0   # [design] the loss's mean rise over the bursts, in standard errors
                             # of that mean under the run's own step-to-step noise
FINETUNE_RISING_SHARE = 0.6  # [design] bursts after which the loss stands higher: most of them


@rule(produces="WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER",
      explains={"LOSS_PLATEAU", "LOSS_OSCILLATING", "LR_TOO_LOW", "VALIDATION_NEVER_IMPROVED"})
def weights_rewritten_outside_optimizer(ctx):
    rows = observed_list(ctx, "rewritten_weights")
    back = [row for row in rows
            if row[1] >= REWRITE_JUMP_UPDATES and row[2] <= REWRITE_LEFT_SHARE]
    if len(back) < REWRITE_MIN_WRITES or saved_state_restores(ctx) is not None:
        return finetuned_in_place(ctx)
    steps = [row[0] for row in back]
    return Finding(
        code="WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER", severity="warning", step=steps[0],
        message=f"The model's weights were written between optimizer steps {len(back)} times "
                f"(after steps {', '.join(str(s) for s in steps[:6])}), each time by "
                f"{min(row[1] for row in back):.0f}-{max(row[1] for row in back):.0f} "
                "typical optimizer updates at once and back toward where they were before: "
                f"only {100 * max(row[2] for row in back):.0f}% or less of the distance "
                "travelled since the previous write is left. Other weights are copied into the "
                "model being trained (a moving average copied in to save or validate and never "
                "swapped back, a target network loaded into the online one, an old checkpoint "
                "reloaded), and training restarts from them each time.",
        evidence={"steps": steps[:20], "jump_in_updates": [round(row[1], 1) for row in back][:20],
                  "distance_left_share": [round(row[2], 3) for row in back][:20],
                  "writes_seen": len(rows), "min_writes": REWRITE_MIN_WRITES},
        fix="Keep the trained weights: store them before copying the average in and restore "
            "them after the save or validation (ema.store(); ema.copy_to(); ...; "
            "ema.restore()), or save/validate the averaged copy itself; copy online -> target, "
            "not target -> online.")


def burst_loss_rises(ctx, bursts):
    """(rises, standard error of their mean): for each burst step, the mean loss of the
    ``FINETUNE_LOSS_WINDOW`` steps from it on minus that of the steps before it (the burst
    ran before the loss of its step was taken); None without enough curve. The noise is the
    curve summary's one-step loss noise."""
    steps, losses = ctx.curve_steps, ctx.curve
    w = FINETUNE_LOSS_WINDOW
    rises = []
    for s in bursts:
        i = int(np.searchsorted(steps, s))
        if i < w or i + w > len(losses):
            continue
        rises.append(float(losses[i:i + w].mean() - losses[i - w:i].mean()))
    if len(rises) < FINETUNE_MIN_BURSTS or len(losses) < 4 * w:
        return None
    return rises, ctx.summary["noise"] * np.sqrt(2.0 / w) / np.sqrt(len(rises))


def finetuned_in_place(ctx):
    rows = observed_list(ctx, "shared_optimizers")
    bursts = sorted({int(row[0]) for row in rows})
    if len(bursts) < FINETUNE_MIN_BURSTS:
        return None
    share = len(bursts) / (bursts[-1] - bursts[0] + 1)
    if share > FINETUNE_MAX_STEP_SHARE:
        return None
    measured = burst_loss_rises(ctx, bursts)
    if measured is None:
        return None
    rises, error = measured
    mean_rise = float(np.mean(rises))
    rising = sum(r > 0 for r in rises) / len(rises)
    if rising < FINETUNE_RISING_SHARE or mean_rise < FINETUNE_RISE_ERRORS * max(error, 1e-12):
        return None
    kinds = sorted({kind for row in rows for kind in row[1]})
    return Finding(
        code="WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER", severity="warning", step=bursts[0],
        message=f"Between optimizer steps, other optimizers ({', '.join(kinds)}) stepped the "
                f"watched model's own weights, in bursts on {len(bursts)} steps "
                f"(steps {', '.join(str(s) for s in bursts[:6])}), and the loss stood higher "
                f"after {100 * rising:.0f}% of the bursts than before them (by "
                f"{mean_rise:.3g} on average, {mean_rise / max(error, 1e-12):.1f} standard "
                "errors): a validation or adaptation pass fine-tunes the model being trained "
                "in place (an SGD over model.parameters() stepped on each episode's support "
                "set), and training resumes from the fine-tuned weights.",
        evidence={"steps": bursts[:20], "optimizers": kinds,
                  "loss_rises": [round(r, 4) for r in rises][:20],
                  "mean_rise": round(mean_rise, 4), "standard_error": round(float(error), 4),
                  "rising_share": round(rising, 3), "step_share": round(share, 3),
                  "threshold_step_share": FINETUNE_MAX_STEP_SHARE,
                  "threshold_errors": FINETUNE_RISE_ERRORS, "finetune_bursts": True},
        fix="Fine-tune a copy: learner = copy.deepcopy(model) (or functional fast weights) for "
            "each evaluation or adaptation episode, with its own optimizer over "
            "learner.parameters(); the model being trained only moves by its own optimizer.")
