"""What an optimizer brings from an earlier training run into a run that starts from fresh
weights (real-bug batch 100: cross-validation folds, searches, repeated trainings).

A cross-validation or a hyperparameter search that resets the weights before each fold but
reuses the optimizer hands the new fold what the optimizer gathered on the last one: SGD's
momentum buffers or Adam's moments point toward the previous fold's solution - a solution
trained on the rows this fold validates on - and the fold's score leaks. Public report: "Is
it possible to manually reset momentum in SGD?", https://github.com/keras-team/keras/issues/454
(weights reloaded per fold, momentum never reset: "information leaking from fold to fold",
"absurdly good results" for a very high momentum).

OPTIMIZER_STATE_FROM_EARLIER_RUN: read from ``run.observed.optimizer_settings``
(``held_state``: the optimizer already held per-parameter state when watching started) and
the loss curve: the first losses are a fresh classifier's, at ln(C) for its C classes, and
the model's largest weight with a carried buffer still looks like a fresh initialisation at
watch start (``run.observed.carried_state``, ``monitor/carried_state.py``; judged as
FROZEN_PARAMETERS judges a frozen tensor). A resumed run restores the state with trained
weights and starts far below ln(C): silent. A second task or phase that starts at chance
with trained weights (a continual-learning task after the first, EWC; a copy of a model
fitted a little and trained on) is silent too: its weights are no fresh draw - the first
version of this rule, reading the losses only, named both (the fixed twins of
ewc_penalty_compares_saved_copy_with_itself and optimizer_copied_apart_from_its_module). A
run resumed with the monitor's state (``mon.load_state_dict``,
``run.observed.resumed_optimizers``) is left alone. Not told apart: one stray optimizer
step taken on fresh weights before watching (its buffer points where the run's first
gradient points, cosine 0.5-0.8 on the healthy continuing runs measured, but a previous
fold's buffer measured 0.34 on the digits MLP - the inputs' shared structure aligns any
two first-layer gradients - so the cosine is kept as evidence, not used). Torch runs only
in practice: minigrad's optimizers' state is not read (``monitor/settings.holds_state``).
"""
from ..findings import Finding
from .context import observed_list
from .curve import FRESH_SHARE, starts_fresh
from .graph import rule

@rule(produces="OPTIMIZER_STATE_FROM_EARLIER_RUN")
def optimizer_state_from_earlier_run(ctx):
    settings = observed_list(ctx, "optimizer_settings")
    if not settings or not all(s.held_state for s in settings):
        return None
    if observed_list(ctx, "resumed_optimizers"):
        return None     # a run resumed with mon.load_state_dict: its state was restored
    fresh = starts_fresh(ctx)
    carried = [row for row in observed_list(ctx, "carried_state") if row[1]]
    if fresh is None or not carried:
        return None     # trained weights: a second task or phase, a copy fitted a little
    first, chance = fresh
    weight, initialiser, cosine = carried[0]
    kind = settings[0].type
    return Finding(
        code="OPTIMIZER_STATE_FROM_EARLIER_RUN", severity="warning", where="optimizer",
        step=ctx.first_step,
        message=f"The {kind} optimizer already held per-parameter state (momentum buffers or "
                "moments) when watching started, yet the model starts like a fresh "
                f"classifier (first losses {first:.3g}, ln(C) = {chance:.3g}) and its largest "
                f"weight {weight} still looks like a fresh draw ({initialiser}): the state was "
                "gathered on an earlier run - the previous cross-validation fold or search "
                "trial - and its first updates push the new weights toward that run's "
                "solution. In a cross-validation that solution was trained on the rows this "
                "fold validates on, so the fold's score leaks and reads better than it is.",
        evidence={"optimizer": kind, "first_losses_median": first, "chance_loss": chance,
                  "fresh_weight": weight, "looks_like": initialiser,
                  "carried_buffer_cosine_with_first_gradient": cosine,
                  "fresh_share": FRESH_SHARE, "groups": len(settings)},
        fix="Build a new optimizer (and scheduler) for each fold or trial, after the model is "
            "re-initialised; or clear its state with the weights (optimizer.state.clear()).")
