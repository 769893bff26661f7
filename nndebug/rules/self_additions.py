"""RESIDUAL_BYPASSED: the model's forward adds a tensor to itself (``x = x + x``).

A residual connection meant as ``x = attn_out + x`` written after the attention output was
assigned to ``x`` (kyegomez/BitNet#32) adds the attention output to itself: the block's
input is lost, and the stream doubles at every block. The model trains, only worse: each
position's own input reaches the head through attention alone.

Read from ``run.observed.self_additions`` (``monitor/self_additions.py``): on the first
recorded steps, the additions in the graph of the model's forward whose two operands are
one activation. ``y + x`` (a residual), ``2 * x`` (a deliberate doubling is written as a
product), ``w + w`` on a parameter and ``loss + loss`` outside the model are not counted.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

SELF_ADDITION_MIN_STEPS = 2  # [design] measured steps showing it: the forward's structure, not
                             # one branch taken once


@rule(produces="RESIDUAL_BYPASSED", explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def residual_bypassed(ctx):
    rows = observed_list(ctx, "self_additions")
    showing = [(step, n) for step, n in rows if n > 0]
    if len(showing) < SELF_ADDITION_MIN_STEPS or len(showing) < len(rows):
        return None
    step, additions = showing[0]
    return Finding(
        code="RESIDUAL_BYPASSED", severity="warning", where="forward", step=step,
        message=f"The model's forward adds a tensor to itself ({additions} addition"
                f"{'s' if additions > 1 else ''} of the form x + x on each of {len(showing)} "
                "measured steps). Written as a residual connection after the block's output "
                "took the input's name (x, _ = attn(h, h, h); x = x + x), it doubles the "
                "block's output and drops its input: nothing skips the block.",
        evidence={"steps": [s for s, _ in showing][:10], "additions": int(additions),
                  "min_steps": SELF_ADDITION_MIN_STEPS},
        fix="Keep the block's input under its own name: y, _ = attn(h, h, h); x = x + y. "
            "If doubling is meant, write 2 * x.")
