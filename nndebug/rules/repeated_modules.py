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
"""
from ..findings import Finding
from .context import observed_list, short_list
from .graph import rule


@rule(produces="MODULE_REPEATED_IN_CONTAINER")
def module_repeated_in_container(ctx):
    rows = observed_list(ctx, "repeated_modules")
    if not rows:
        return None
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
