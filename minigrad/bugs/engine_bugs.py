"""Bugs in the autograd engine itself rather than in one primitive.

These replace ``minigrad.autograd.accumulate`` (the function the engine calls
when a second gradient arrives for a tensor that was used more than once).
"""
from .base import ENGINE, define, leaf, size


def _reused_node_example(rng):
    n, d = size(rng, 2, 4), size(rng, 2, 4)
    x, w = leaf(rng, (n, d)), leaf(rng, (n, d))

    def forward():
        h = x * w                     # h is used three times below; the first use is the
        return h + (h * h).tanh()     # shallow one, which a careless topological sort gets wrong
    return {"x": x, "w": w}, forward


@define(
    name="engine_overwrites_reused_gradient",
    op=ENGINE,
    family="engine",
    summary="when a tensor is used more than once, the engine keeps only the last gradient "
            "that arrives instead of adding them",
    symptom="""Networks with re-used tensors - residual connections (x + f(x)), shared or
        tied weights, x * x - train wrongly, while plain chains train perfectly. Residual
        models lose the gradient of one branch and learn much slower than they should.""",
    lesson="""
        Multivariable chain rule: if a tensor h feeds several operations, the loss depends
        on h through each of them, and
            dL/dh = sum over every use u of (dL/du)(du/dh)
        The engine must ADD the gradients arriving from each use (minigrad's
        autograd.accumulate: existing + new). The bug keeps only the newest one
        (existing = new), so every use but one is forgotten. In y = x * x it gives x
        instead of 2x.

        Why nothing crashes: each single gradient already has h's shape. Every graph
        without re-use (a plain MLP) is still exactly right, which is why it hides.""",
    example=_reused_node_example,
)
def engine_overwrites_reused_gradient(existing, new):
    return new
