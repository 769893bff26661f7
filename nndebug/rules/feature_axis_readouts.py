"""POOLED_OVER_FEATURES: a set's elements (a graph's nodes, a sequence's tokens) read
out by pooling over the FEATURE axis: ``h.mean(dim=-1)`` on (graphs, nodes, features) where
``h.mean(dim=1)`` was meant.

Read from ``run.observed.feature_axis_readouts`` (``monitor/feature_axis_readouts.py``): a
linear layer reads a mean or sum over the last axis of a 3+-dimensional tensor that a
linear layer had just computed, features in that last axis. What the layers learned is
squashed to one number per element, and the head reads the element slots (their order in
the batch) as features. Named when learning went poorly (``curve.learning_poor``): a model
that reads a scalar per time step on purpose (one summary number per frame, then a layer
over the frames) learns, and is left alone.

Public report: "About the readout operation in graph classification",
https://github.com/flyingdoog/PGExplainer/issues/6.
"""
from ..findings import Finding
from .context import observed_list
from .curve import learning_poor
from .graph import rule


@rule(produces="POOLED_OVER_FEATURES",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE", "OVERFITTING"})
def readout_over_feature_axis(ctx):
    rows = observed_list(ctx, "feature_axis_readouts")
    if not rows or not learning_poor(ctx):
        return None
    step, reduction, shape = rows[0]
    shape = [int(n) for n in shape]
    pooled = ", ".join(str(n) for n in shape[:-1])
    return Finding(
        code="POOLED_OVER_FEATURES", severity="warning", where="model forward",
        step=step,
        message=f"A layer reads the {reduction} over the LAST axis of a {tuple(shape)} tensor "
                f"that a linear layer had just computed: its {shape[-1]} features are "
                f"averaged away, leaving ({pooled}) - one number per node or token - and the "
                f"next layer reads the {shape[-2]} element slots as if they were features "
                "(their order in the batch decides what it sees). A readout pools over the "
                "elements, not the features; training went poorly.",
        evidence={"reduction": reduction, "shape": shape},
        fix=f"Pool over the element axis: h.{reduction}(dim=1) for (batch, elements, "
            "features), giving (batch, features), and size the next layer by the features.")
