"""RESIDUAL_INPUT_MODIFIED_IN_PLACE: a block's input rewritten by an in-place activation
inside the block, then added back as its skip (``run.observed.in_place_skips``,
``monitor/in_place_skip_inputs.py``).

``nn.ReLU(inplace=True)`` writes relu(x) into x itself. As a residual block's first layer
(or in ``out = self.relu(x)``) it rewrites the block's input, and ``out += x`` - or
``out += identity``, the same tensor - adds relu(x): the skip no longer carries the input,
and what its negative half held is gone. The graph shows it alone (the activation applied
in place onto the block's input, and an addition that reads its result): no threshold.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

IN_PLACE_ACTIVATION_NAMES = {
    "Relu": "ReLU", "LeakyRelu": "LeakyReLU", "Elu": "ELU", "Celu": "CELU",
    "Hardtanh": "Hardtanh/ReLU6", "Threshold": "Threshold", "Silu": "SiLU",
    "Hardswish": "Hardswish", "Hardsigmoid": "Hardsigmoid", "Mish": "Mish",
    "Sigmoid": "sigmoid", "Tanh": "tanh", "RreluWithNoise": "RReLU",
    "Clamp": "clamp_", "ClampMin": "clamp_"}


def activation_name(node_name):
    """"ReluBackward0" -> "ReLU"."""
    stem = node_name.split("Backward")[0]
    return IN_PLACE_ACTIVATION_NAMES.get(stem, stem)


@rule(produces="RESIDUAL_INPUT_MODIFIED_IN_PLACE")
def residual_input_modified_in_place(ctx):
    rows = observed_list(ctx, "in_place_skips")
    if not rows:
        return None
    step, block, kind, node = rows[0]
    activation = activation_name(node)
    blocks = [f"{row[1]!r} ({row[2]})" if row[1] else f"the model ({row[2]})" for row in rows]
    return Finding(
        code="RESIDUAL_INPUT_MODIFIED_IN_PLACE", severity="warning", where="forward",
        step=step,
        message=f"The block {blocks[0]} applies an in-place {activation} to its own input and "
                "then adds (or concatenates) that input back as its skip connection: the "
                f"{activation} rewrote the tensor, so the skip carries {activation}(input), "
                "not the input (an `identity = x` kept before it is the same tensor), and "
                "loses what the input's negative values carried."
                + (f" Also: {', '.join(blocks[1:])}." if len(blocks) > 1 else ""),
        evidence={"blocks": [[row[1], row[2]] for row in rows], "activation": node,
                  "steps": sorted({row[0] for row in rows})},
        fix=f"Make the block's first activation out of place (nn.ReLU() / inplace=False, "
            "F.relu(x) not F.relu_(x)), or keep the skip as a copy (identity = x.clone()) "
            "if the in-place memory saving matters. In-place activations are safe on "
            "tensors the block made itself (after a conv or norm), not on its input.")
