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
the loss curve: the first losses are a fresh classifier's, at ln(C) for its C classes (so
the weights are an initialisation, not a checkpoint's). A resumed run restores the state
with trained weights and starts far below ln(C): silent; a run resumed with the monitor's
state (``mon.load_state_dict``, ``run.observed.resumed_optimizers``) restored its state
and is left alone even early on, when its loss is still near ln(C). Not told apart: a
resume from a checkpoint so early that its loss is still within CHANCE_TOLERANCE of ln(C)
(a few steps in; 40 SGD steps already reach 0.93 ln(C) and are left alone), and one stray
optimizer step taken before watching. Torch runs only in practice: minigrad's optimizers'
state is not read (``monitor/settings.holds_state``). Nothing is recorded for it:
the settings are read once when watching starts.
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
    if fresh is None:
        return None
    first, chance = fresh
    kind = settings[0].type
    return Finding(
        code="OPTIMIZER_STATE_FROM_EARLIER_RUN", severity="warning", where="optimizer",
        step=ctx.first_step,
        message=f"The {kind} optimizer already held per-parameter state (momentum buffers or "
                "moments) when watching started, yet the model starts like a fresh "
                f"classifier (first losses {first:.3g}, ln(C) = {chance:.3g}): the state was "
                "gathered on an earlier run - the previous cross-validation fold or search "
                "trial - and its first updates push the new weights toward that run's "
                "solution. In a cross-validation that solution was trained on the rows this "
                "fold validates on, so the fold's score leaks and reads better than it is.",
        evidence={"optimizer": kind, "first_losses_median": first, "chance_loss": chance,
                  "fresh_share": FRESH_SHARE, "groups": len(settings)},
        fix="Build a new optimizer (and scheduler) for each fold or trial, after the model is "
            "re-initialised; or clear its state with the weights (optimizer.state.clear()).")
