"""BEST_WEIGHTS_ALIAS_LIVE_WEIGHTS: ``model.load_state_dict(d)`` was given the model's own
tensors, so the load restored nothing.

``model.state_dict()`` returns references to the live parameters, not copies. Keeping
``best_model_wts = model.state_dict()`` at the best epoch and loading it back at the end (the
transfer-learning tutorial's loop before pytorch/tutorials#188: "Otherwise best_model_wts
changes always to last epoch's state") copies every tensor onto itself: the "best" model is
the last one, overfitted or diverged, and nothing raises. Read from
``run.observed.aliased_state_loads`` (``monitor/aliased_loads.py``): the loads of the watched
model and how many of its floating-point tensors the dict held as their own storage. A
checkpoint read from a file, ``copy.deepcopy(model.state_dict())``, another model's (an
EMA's, a teacher's) or tensors ``.clone()``d hold other storage and are never counted.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule


@rule(produces="BEST_WEIGHTS_ALIAS_LIVE_WEIGHTS")
def best_weights_alias_live_weights(ctx):
    loads = [(step, own, compared) for step, own, compared in
             observed_list(ctx, "aliased_state_loads") if compared and own == compared]
    if not loads:
        return None
    step, own, _ = loads[0]
    return Finding(
        code="BEST_WEIGHTS_ALIAS_LIVE_WEIGHTS", severity="warning", where="load_state_dict",
        step=int(step),
        message=f"model.load_state_dict() at step {step} was given the model's own tensors "
                f"(all {own} floating-point tensors are the live parameters and buffers, not "
                "copies): the load restores nothing. A dict kept as model.state_dict() (or "
                "its .copy(), which copies the dict only) changes with every optimizer step, "
                "so weights saved as the best epoch's are the last epoch's when loaded back.",
        evidence={"steps": [int(s) for s, _, _ in loads][:10], "tensors": int(own)},
        fix="Keep a copy: best_state = copy.deepcopy(model.state_dict()) (or {k: v.detach()"
            ".clone() for k, v in model.state_dict().items()}), or save it to a file.")
