"""RNN_STATE_DRAWN_AT_RANDOM: a recurrent layer is started from random numbers drawn in
``forward`` (``torch.randn`` as ``h0``/``c0``, schmidt-ju/crat-pred#8).

Every call starts each sequence from fresh noise, so the same input gets a different
prediction every time it is scored, in evaluation too (``model.eval()`` turns no random draw
off), and training spends capacity washing the noise out. The calls are read from the
model's source once, when watching starts (``monitor/random_states.py``,
``run.observed.random_rnn_states``): the finding needs no steps, and such a call is a
warning whatever the loss does, like a dropout function that ignores eval.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

STATE_CALLS_LISTED = 5             # [design] calls named in the evidence at most


@rule(produces="RNN_STATE_DRAWN_AT_RANDOM")
def rnn_state_drawn_at_random(ctx):
    calls = observed_list(ctx, "random_rnn_states")
    if not calls:
        return None
    first = calls[0]
    place = f"{first['file']}:{first['line']}" if first["file"] else f"line {first['line']}"
    others = f" (and {len(calls) - 1} more such call(s))" if len(calls) > 1 else ""
    return Finding(
        code="RNN_STATE_DRAWN_AT_RANDOM", severity="warning",
        where=f"{first['module_type']}.{first['layer']}", step=None,
        message=f"{first['module_type']}.forward starts {first['layer']} from a state drawn at "
                f"random on every call: `{first['call']}` ({place}){others}. Each sequence "
                "starts from fresh noise, so the same input gets a different prediction each "
                "time it is scored (model.eval() does not turn the draw off) and training "
                "has to learn to ignore the noise.",
        evidence={"calls": calls[:STATE_CALLS_LISTED], "count": len(calls)},
        fix="Leave the initial state out (PyTorch starts from zeros), pass zeros, or make it "
            "a learned nn.Parameter expanded to the batch; carry a state only across batches "
            "that continue the same sequences.")
