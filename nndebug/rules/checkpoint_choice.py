"""BEST_CHECKPOINT_NOT_BEST: the "best" weights loaded back after training are those of a
late validation pass, far above the run's best validation loss.

A best-checkpoint loop keeps a reference loss and saves the weights whenever a validation
pass beats it. When the reference is overwritten with the last epoch's loss (saved when a
pass beats the one before it, not the best: https://github.com/mindee/doctr/pull/1961) or
with a training batch's loss (https://github.com/i-machine-think/machine/pull/23), the
saved "best" follows the run into over-fitting, and the model loaded at the end is a late
one: held-out accuracy 0.67 and 0.78 against 0.88 for the loop that keeps the lowest
(real-bug batch 139). Training is the same as the fixed loop's; only the choice differs.

Read from ``rules.context.restored_checkpoint``: the validation pass whose weights the last
load after training matches (weight fingerprints, ``monitor/restored_checkpoints.py``).
Named when that pass's validation loss lies in the upper half between the run's best and
its end (not ``near_best``: a loop keeping the best accuracy restores a pass a little above
the lowest loss) and at least LATE_RISE above the best, in a run whose validation loss rose
LATE_RISE above its best by the end (with no such rise there is no late over-fitted pass to
have chosen, and a loop choosing by accuracy may take a pass of a higher loss).

Or the pass loaded back is the worst of ``WORST_OF_PASSES`` or more, whatever the curve did
(real-bug batch 145): the Trainer's ``metric_for_best_model="error_rate"`` with
``greater_is_better`` left to its default (True for names not ending in "loss") keeps the
pass of the HIGHEST error as the best, and ``load_best_model_at_end`` reloads the first
evaluation of a run whose validation loss fell at every one (held-out accuracy 0.41 against
0.92).
"""
from ..findings import Finding
from .context import restored_checkpoint
from .graph import rule

LATE_RISE = 0.1      # [playbook] 10% above the best validation loss, OVERFITTING's own rise


@rule(produces="BEST_CHECKPOINT_NOT_BEST", explains={"OVERFITTING"})
def best_checkpoint_not_best(ctx):
    restored = restored_checkpoint(ctx)
    if restored is None or restored["near_best"]:
        return None
    best, loaded = restored["best_val"], restored["restored_val"]
    if loaded - best < LATE_RISE * abs(best):
        return None     # close to the best
    if restored["end_val"] - best < LATE_RISE * abs(best) and not restored["worst"]:
        return None     # a run that never rose far above its best: a loop choosing by
                        # accuracy may take another pass (early_stopping_on_accuracy_kept_
                        # lowest_as_best's twin: 0.26 restored, 0.195 best, 0.196 end); the
                        # worst pass of all is chosen by no sound criterion (batch 145)
    return Finding(
        code="BEST_CHECKPOINT_NOT_BEST", severity="warning", step=restored["load_step"],
        message=f"The weights loaded after training are those of the validation pass at step "
                f"{restored['restored_step']}, whose validation loss was {loaded:.3g}; the "
                f"run's best was {best:.3g} at step {restored['best_step']} (its last "
                f"{restored['end_val']:.3g}). The loop's \"best\" checkpoint followed the run "
                "into over-fitting or back to its start: its reference is overwritten by "
                "something other than the best score so far (the previous epoch's, a training "
                "batch's), or compared the wrong way (a lower-is-better test on an accuracy).",
        evidence=restored,
        fix="Keep the best score in its own variable, compared with and updated by the "
            "validation metric only when a pass beats it (best = min(best, val_loss)), in "
            "the metric's direction (higher is better for an accuracy; a Trainer's "
            "greater_is_better=False for an error or a loss); save a deep copy of the weights "
            "at that pass (copy.deepcopy(model.state_dict())).")
