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
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

REWRITE_JUMP_UPDATES = 5.0   # [design] a write that moves the sampled weights by 5 median
                             # optimizer updates or more: clipping and masks trim at most one
                             # update, an EMA (decay 0.99) copied every 25 steps jumps 15-40
REWRITE_LEFT_SHARE = 0.35    # [design] the write leaves at most 35% of the distance the
                             # weights had travelled since the previous write: an EMA copy
                             # leaves 10-25%, Lookahead (alpha 0.5) 50%
REWRITE_MIN_WRITES = 2       # [design] writes that must show it: one can be a deliberate
                             # reload (a rollback after a NaN)


@rule(produces="WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER",
      explains={"LOSS_PLATEAU", "LOSS_OSCILLATING", "LR_TOO_LOW", "VALIDATION_NEVER_IMPROVED"})
def weights_rewritten_outside_optimizer(ctx):
    rows = observed_list(ctx, "rewritten_weights")
    back = [row for row in rows
            if row[1] >= REWRITE_JUMP_UPDATES and row[2] <= REWRITE_LEFT_SHARE]
    if len(back) < REWRITE_MIN_WRITES:
        return None
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
