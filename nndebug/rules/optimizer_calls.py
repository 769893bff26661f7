"""Rules about how the loop calls the optimizer: a parameter listed twice in its param
groups, and optimizer.step() called again with no new gradient. Both are seen on every step,
not in the sparse records: the listing once when watch starts (``ParamInfo.times_in_optimizer``),
the steps by an optimizer step hook that stays on (``monitor/optimizer_steps.py``).
"""
from ..findings import Finding
from .context import MAJORITY, modules, names, short_list
from .graph import rule

REPEATED_MIN_STEPS = 2         # [design] watched steps with an optimizer step on no new
                               # gradient: two make a pattern (monitor/optimizer_steps.py)


@rule(produces="OPTIMIZER_DUPLICATE_PARAMS")
def optimizer_duplicate_params(ctx):
    """Parameters the optimizer lists more than once: each listing is its own update."""
    twice = [i for i, p in enumerate(ctx.run.params) if (p.times_in_optimizer or 0) > 1]
    if not twice:
        return None
    twice_names = names(ctx.run, twice)
    most = max(ctx.run.params[i].times_in_optimizer for i in twice)
    return Finding(
        code="OPTIMIZER_DUPLICATE_PARAMS", severity="warning",
        where=", ".join(modules(twice_names)), step=0,
        message=f"The optimizer lists {len(twice)} parameter tensor(s) more than once "
                f"({short_list(twice_names)}, up to {most} times): every optimizer.step() "
                "updates them once per listing, so they move several times per batch "
                "(SGD: a multiplied learning rate; Adam: repeated steps on one gradient) "
                "while the rest of the model moves once. Torch warns about it only when the "
                "optimizer is built.",
        evidence={"parameters": twice_names[:20], "count": len(twice),
                  "times_listed": [ctx.run.params[i].times_in_optimizer for i in twice][:20]},
        fix="Give each parameter to the optimizer once, e.g. "
            "list(dict.fromkeys([*actor.parameters(), *critic.parameters()])), or build it "
            "from model.parameters() of the module that holds both.")


@rule(produces="REPEATED_OPTIMIZER_STEPS")
def repeated_optimizer_steps(ctx):
    """optimizer.step() called more often than backward between two watched steps."""
    observed = getattr(ctx.run, "observed", None)
    total = getattr(observed, "repeated_total", 0) or 0
    if total < REPEATED_MIN_STEPS:
        return None
    steps = list(observed.repeated_optimizer_steps)
    watched = max(int(getattr(ctx.run, "n_steps", 0) or 0), total)
    return Finding(
        code="REPEATED_OPTIMIZER_STEPS", severity="error" if total >= MAJORITY * watched
        else "warning", step=steps[0] if steps else None,
        message=f"optimizer.step() ran more often than backward: on {total} of {watched} "
                f"watched steps (first at step {steps[0] if steps else '?'}) the optimizer "
                "stepped again with no new gradient, so the same gradient was applied twice "
                "(with momentum or Adam each call is a full update). Typical: a second "
                "optimizer.step() left outside a gradient-accumulation if, or a step both in "
                "the loop and in a helper it calls.",
        evidence={"steps": steps[:20], "times": total, "watched_steps": watched,
                  "threshold_steps": REPEATED_MIN_STEPS},
        fix="Call optimizer.step() once per optimizer step, after the backward passes it "
            "uses (accumulating: only inside the if that ends the accumulation), then "
            "zero_grad(); and watch's step() once after it.")
