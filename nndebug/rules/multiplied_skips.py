"""RESIDUAL_MULTIPLIED: the model's forward joins a learned branch to its own input with
``*`` where a residual connection adds (``x = x * mlp(norm(x))``).

Reported in a MaxViT written by hand (ChristophReich1996/MaxViT#8: ``output = output *
self.drop_path(self.mlp(self.norm_2(output)))`` for ``output + ...``; the author: "that is
a severe bug"). A residual block adds a correction to what it was given, so the input
always reaches the next block; a product rescales every feature by a number the branch
computes, with no path around it: the stream shrinks or grows from block to block and
the gradient to earlier blocks passes through the product. The model still trains, worse
(a 4-block ViT on the digits: 0.30 test accuracy against 0.90).

Read from ``run.observed.multiplied_skips`` (``monitor/multiplied_skips.py``): on the first
recorded steps, products in the forward's graph whose operands have one shape and where
one operand is a learned affine layer's output computed from the other (no residual
addition between them), and which are not summed back with that operand. Gates ending in
a sigmoid or another bounded activation (squeeze-and-excitation, SiLU, GLU), conditioning
from another input (FiLM) and per-channel scales are not such products.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

MULTIPLIED_SKIP_MIN_STEPS = 2   # [design] measured steps showing it: the forward's wiring, not
                                # one branch taken once (as RESIDUAL_BYPASSED)


@rule(produces="RESIDUAL_MULTIPLIED", explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def residual_multiplied(ctx):
    rows = observed_list(ctx, "multiplied_skips")
    showing = [row for row in rows if row[1] > 0]
    if len(showing) < MULTIPLIED_SKIP_MIN_STEPS or len(showing) < len(rows):
        return None
    step, products, shapes = showing[0]
    shape = " x ".join(str(n) for n in shapes[0]) if shapes else "?"
    many = f"{products} such products" if products > 1 else "one such product"
    return Finding(
        code="RESIDUAL_MULTIPLIED", severity="warning", where="forward", step=step,
        message=f"The model's forward multiplies a tensor by a learned branch computed from "
                f"it ({many} per forward, {shape}, on each of {len(showing)} measured "
                "steps): x * f(x) where f ends in a linear or convolutional layer, and x is "
                "not added back. Written where a residual connection was meant (x + "
                "mlp(norm(x))), it rescales every feature instead of adding a correction: "
                "nothing carries the block's input around it, and the stream shrinks or "
                "grows from block to block.",
        evidence={"steps": [row[0] for row in showing][:10], "products": int(products),
                  "shapes": [list(s) for s in shapes],
                  "min_steps": MULTIPLIED_SKIP_MIN_STEPS},
        fix="Join the branch with +: x = x + mlp(norm(x)) (x = x + drop_path(mlp(norm(x)))). "
            "If a multiplicative gate is meant, bound it (x * torch.sigmoid(f(x))) or keep a "
            "path around it (x + x * f(x)).")
