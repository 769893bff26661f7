"""MODULE_REPEATED_IN_CONTAINER: one module object sits at several positions of a
Sequential or ModuleList, so the "n layers" share one set of weights.

``n * [Block(c)]`` repeats a reference, not a constructor call: the deep ResNet of
deep-learning-with-pytorch/dlwpt-code#89 (``nn.Sequential(*(n_blocks * [ResBlock(...)]))``)
has one residual block applied n times, and its batch norm's running statistics blend all n
depths, so the model trained in training mode is useless in eval mode. The same slip was
reported in zalandoresearch/pytorch-vq-vae#2 and yaoppeng/U-Net_v2#10 (``ModuleList([
nn.Conv2d(...)] * 4)``). Sharing on purpose is written as one module called in a loop; a
positional container that lists one parametrised object twice is almost always this slip.

Reads ``run.observed.repeated_modules`` (``monitor/repeated_modules.py``): the repeated
children that hold trainable parameters (a ReLU object listed twice shares nothing and is
not noted).

The same slip outside a container (real-bug batch 269): a two-output model whose forward
calls one output layer for both outputs, ``x1 = self.dense2(x); x2 = self.dense2(x)``,
each then trained toward its own target (discuss.pytorch.org 49447, "Multi-output model").
The two outputs are one value, so the summed loss settles it between the targets and
neither is learned. Read from ``run.observed.repeated_output_calls``
(``monitor/repeated_output_calls.py``): two regression terms of the loss whose predictions
start at two calls of one layer on one input, on the first recorded steps. Said when a
container repeats nothing; one finding per run either way.
"""
from ..findings import Finding
from .context import observed_list, short_list
from .graph import rule

REPEATED_CALL_MIN_STEPS = 2  # [design] measured steps with such a pair: the model's wiring,
                             # not one odd step (three are measured)


@rule(produces="MODULE_REPEATED_IN_CONTAINER")
def module_repeated_in_container(ctx):
    rows = observed_list(ctx, "repeated_modules")
    if not rows:
        return output_layer_called_for_two_targets(ctx)
    container, child_type, positions, tensors = rows[0]
    where = container or "(the model)"
    said = ", ".join(f"{c or 'the model'}: one {t} at positions {short_list(p, 6)}"
                     for c, t, p, _ in rows[:3])
    return Finding(
        code="MODULE_REPEATED_IN_CONTAINER", severity="warning", where=where, step=None,
        message=f"A container lists one module object at several positions ({said}): the "
                "positions share one set of weights, and a batch norm inside it one set of "
                "running statistics for every depth. This is what `n * [Block()]` or "
                "`[layer] * n` builds (list multiplication repeats a reference); the model "
                f"has the weights of one {child_type} where {len(positions)} were written.",
        evidence={"repeated": [{"container": c, "type": t, "positions": list(p),
                                "trainable_tensors": int(n)} for c, t, p, n in rows]},
        fix="Build one module per position: nn.Sequential(*[Block(c) for _ in range(n)]) "
            "(or copy.deepcopy for each); if the sharing is meant, keep one module and call "
            "it in a loop.")


def output_layer_called_for_two_targets(ctx):
    """The finding for two regression terms whose predictions are one layer called twice on
    one input (``run.observed.repeated_output_calls``), or None."""
    rows = observed_list(ctx, "repeated_output_calls")
    steps = sorted({step for step, pairs in rows if pairs})
    if len(steps) < REPEATED_CALL_MIN_STEPS:
        return None
    pairs = sorted({tuple(pair) for _, found in rows for pair in found})
    first, second, layer = pairs[0]
    kind = layer.replace("Backward0", "")
    return Finding(
        code="MODULE_REPEATED_IN_CONTAINER", severity="warning", where="loss", step=steps[0],
        message=f"Two regression terms of the loss ({first} and {second}) read predictions "
                f"that are one layer ({kind}) called twice on the same input, on "
                f"{len(steps)} measured steps: the two outputs are the same values under two "
                "names. Trained toward two targets, that one value settles between them and "
                "neither target is learned (when one term falls the other rises). The model "
                "has one output layer where one per target was written (`x1 = self.fc(h); "
                "x2 = self.fc(h)`).",
        evidence={"steps": steps, "pairs": [list(p) for p in pairs]},
        fix="Give each output its own layer (self.fc_a(h), self.fc_b(h)), or one layer with "
            "one unit per target (nn.Linear(hidden, 2)) sliced into the outputs.")
