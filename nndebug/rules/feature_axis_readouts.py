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

Also named for a pooled CONTEXT taken over the features: a keepdim pool over the last axis
of a layer's output, expanded back and concatenated beside each element's features
(reduction ``"max, broadcast back"``): ``net.max(dim=-1, keepdim=True)`` where a PointNet or
DeepSets block meant the points, ``dim=1`` - each element's context is its own largest
feature, and no element hears of the others.

Public reports: "About the readout operation in graph classification",
https://github.com/flyingdoog/PGExplainer/issues/6; "Pooling in ResnetECPos",
https://github.com/facebookresearch/neuromorph/issues/2.
"""
from ..findings import Finding
from .context import observed_list
from .curve import learning_poor
from .graph import rule

BROADCAST_BACK = ", broadcast back"   # the suffix monitor/feature_axis_readouts.py writes after
                                      # the reduction of a pool expanded back (rules import no
                                      # monitor module; tests/test_real_bug_rules_108 checks
                                      # the two spellings agree)


@rule(produces="POOLED_OVER_FEATURES",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE", "OVERFITTING"})
def readout_over_feature_axis(ctx):
    rows = observed_list(ctx, "feature_axis_readouts")
    if not rows or not learning_poor(ctx):
        return None
    step, reduction, shape = rows[0]
    shape = [int(n) for n in shape]
    if reduction.endswith(BROADCAST_BACK):
        return _context_over_features(step, reduction[:-len(BROADCAST_BACK)], shape)
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


def _context_over_features(step, reduction, shape):
    """The finding for a pooled context taken over the features and broadcast back."""
    return Finding(
        code="POOLED_OVER_FEATURES", severity="warning", where="model forward",
        step=step,
        message=f"A layer reads, beside each element's features, a {reduction} taken over "
                f"the LAST axis of a {tuple(shape)} tensor a linear layer had just computed "
                f"and expanded back over those {shape[-1]} features: each of the "
                f"{shape[-2]} elements gets its own {reduction} feature as its 'pooled "
                "context', so no element hears of the others in its set - the shared "
                "context a PointNet or DeepSets block pools over the elements is missing; "
                "training went poorly.",
        evidence={"reduction": reduction, "shape": shape, "broadcast_back": True},
        fix=f"Pool the context over the element axis: h.{reduction}(dim=1, keepdim=True) "
            "for (batch, elements, features), expanded over the elements "
            "(torch.max returns (values, indices): take [0]).")
