"""BEST_WEIGHTS_NOT_RESTORED: the loop kept the weights of its best validation pass and
never loaded them back; the run ends with the weights of a later pass, far above the best.

A best-checkpoint loop takes ``model.state_dict()`` (a deep copy, or ``torch.save`` to
"best.pt") whenever a validation pass beats the best so far. When nothing loads it back
before the model is used (allenai/allennlp#1223: "evaluate_on_test" scored the last epoch's
weights, not best.th; keras-team/keras#12511: the best weights restored only when patience
runs out), the model handed on and the test score are those of the last, most over-fitted
epoch: test accuracy 0.794 against 0.884 (real-bug batch 266).

Read from ``run.observed.restored_checkpoints`` (``monitor/restored_checkpoints.py``): the
steps of the validation passes, of the loop's own ``state_dict()`` reads ("save") and of
loads. Named when, over at least UNRESTORED_MIN_PASSES validation passes, the loop took the
weights at (or right after) the pass of the lowest validation loss, did not take them at the
last pass (a loop that saves every epoch keeps its last weights on purpose, and a resume
checkpoint is no choice of the best), loaded nothing after the last pass, and the last
pass's validation loss stands UNRESTORED_RISE above the best. A restore that happens after
the monitor closed is not seen: load the best weights inside ``with nd.watch(...)``.
"""
import numpy as np

from ..findings import Finding
from .context import observed_list
from .graph import rule

UNRESTORED_MIN_PASSES = 5   # [design] validation passes needed before judging a kept checkpoint
UNRESTORED_RISE = 0.1       # [playbook] 10% above the best validation loss, OVERFITTING's own rise


@rule(produces="BEST_WEIGHTS_NOT_RESTORED", explains={"OVERFITTING"})
def best_weights_not_restored(ctx):
    rows = observed_list(ctx, "restored_checkpoints")
    saves = [int(step) for kind, step, _ in rows if kind == "save"]
    passes = [int(step) for kind, step, _ in rows if kind == "validation"]
    if not saves or not passes:
        return None
    last = max(passes)
    if any(kind == "load" and step >= last for kind, step, _ in rows):
        return None          # a restore after the last pass: BEST_CHECKPOINT_NOT_BEST judges it
    steps, values = ctx.run.val_array()
    steps, values = np.asarray(steps), np.asarray(values, dtype=float)
    finite = np.isfinite(values)
    steps, values = steps[finite], values[finite]
    if len(values) < UNRESTORED_MIN_PASSES:
        return None

    def saved_at(step):      # the loop took the weights at this pass, or right after it
        return any(step <= s <= step + 1 for s in saves)

    best = int(np.argmin(values))
    best_step, best_val, end_val = int(steps[best]), float(values[best]), float(values[-1])
    if best == len(values) - 1 or not saved_at(best_step) or saved_at(int(steps[-1])):
        return None
    if end_val - best_val < UNRESTORED_RISE * abs(best_val):
        return None
    evidence = {"best_step": best_step, "best_val": best_val, "end_step": int(steps[-1]),
                "end_val": end_val, "saves": len(saves), "passes": len(values)}
    return Finding(
        code="BEST_WEIGHTS_NOT_RESTORED", severity="warning", step=int(steps[-1]),
        message=f"The loop took the model's weights at its best validation pass (step "
                f"{best_step}, validation loss {best_val:.3g}) but loaded nothing back: the "
                f"run ends with the weights of its last pass (step {int(steps[-1])}, "
                f"validation loss {end_val:.3g}, {(end_val - best_val) / abs(best_val):.0%} "
                "above the best). A model evaluated or handed on after this loop is the "
                "over-fitted last one, not the saved best (a best.pt loaded later elsewhere is "
                "not seen).",
        evidence=evidence,
        fix="Load the saved best weights before testing or returning the model "
            "(model.load_state_dict(torch.load('best.pt')) or "
            "model.load_state_dict(best_state)); with Keras-style early stopping, restore them "
            "whether or not patience ran out.")
