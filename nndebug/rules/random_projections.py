"""RANDOM_FEATURES_REDRAWN_EVERY_CALL: a module multiplies its input by a random matrix drawn
inside ``forward`` - a Fourier-feature mapping's ``B = torch.randn(2, m) * scale``, a random
projection - so every call maps the same input through other features
(tancik/fourier-feature-networks#22; real-bug batch 113).

The layers after the mapping cannot learn what a feature means when its frequencies change
at every step: the loss sinks to the target's variance and stays there, and evaluation
answers with yet another draw. The products are read from the model's source once, when
watching starts (``monitor/random_projections.py``, ``run.observed.random_projections``):
noise drawn per sample (``*_like``, a batch-sized shape), a learned distribution (the draw
combined with the module's parameters, Bayes-by-backprop), a draw inside an ``if`` (lazy
initialisation, periodic redrawing) and a draw only while training are left alone. Like a
recurrent state drawn at random, such a product is a warning whatever the loss does.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

PRODUCTS_LISTED = 5            # [design] products named in the evidence at most


@rule(produces="RANDOM_FEATURES_REDRAWN_EVERY_CALL")
def random_features_redrawn_every_call(ctx):
    products = observed_list(ctx, "random_projections")
    if not products:
        return None
    module_type, file, line, call = products[0]
    place = f"{file}:{line}" if file else f"line {line}"
    others = f" (and {len(products) - 1} more)" if len(products) > 1 else ""
    return Finding(
        code="RANDOM_FEATURES_REDRAWN_EVERY_CALL", severity="warning",
        where=module_type, step=None,
        message=f"{module_type}.forward multiplies by a matrix drawn at random on every call: "
                f"`{call}` ({place}){others}. The same input is mapped through other random "
                "features at every step, so what follows cannot learn what a feature means "
                "(the loss settles at the target's variance), and evaluation uses yet another "
                "draw (model.eval() does not turn it off).",
        evidence={"products": [list(p) for p in products[:PRODUCTS_LISTED]],
                  "count": len(products)},
        fix="Draw the matrix once, in __init__, and keep it as a buffer "
            "(self.register_buffer('B', torch.randn(d, m) * scale)) - or as an nn.Parameter "
            "if it should be learned; use the same matrix at every call.")
