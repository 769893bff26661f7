"""Readouts that average away the features a layer just computed
(``run.observed.feature_axis_readouts``; POOLED_OVER_FEATURES,
``nndebug.rules.feature_axis_readouts``).

A model that keeps one row of features per element of a set - node states of batched
graphs (graphs, nodes, features), token states (batch, tokens, features) - reads the set
out by pooling over its ELEMENTS: ``h.mean(dim=1)`` gives (graphs, features). Pooled over
the last axis instead, ``h.mean(dim=-1)`` gives (graphs, nodes): each node's mean
activation, one number where the layers computed many, and a head sized to what came out
reads the node slots as features (PGExplainer's readout, flyingdoog/PGExplainer#6).

On the first ``STEPS_MEASURED`` recorded steps the shared walk of the forward's graph
(``graph_walks.py``) hands its nodes over: each linear layer (``AddmmBackward0`` or
``MmBackward0``) whose input comes straight from a mean or sum over ONE axis
(``MeanBackward1``, ``SumBackward1``) of a tensor of 3+ dimensions, that axis the last, and
that tensor made - through elementwise nodes only - by a linear layer whose output width is
that axis (its features): the reduction threw a layer's features away. Kept as ``(step,
reduction, reduced shape)``. A global average pool over a convolution's length or pixels
reduces a convolution's output, and a hand-written layer norm's mean is subtracted, not
read by a layer: neither is kept.

Cost: a name check per walked node on the first three recorded steps; nothing on the
device.
"""
from .graph_walks import FirstStepsReader

STEPS_MEASURED = 3           # [design] recorded steps walked
ELEMENTWISE_DEPTH = 4        # [design] elementwise nodes allowed between the producing layer
                             # and the reduction (an activation, a dropout, a view)
LAYERS = {"AddmmBackward0", "MmBackward0"}
REDUCTIONS = {"MeanBackward1", "SumBackward1"}
ELEMENTWISE = {"ReluBackward0", "GeluBackward0", "TanhBackward0", "SigmoidBackward0",
               "EluBackward0", "LeakyReluBackward0", "SiluBackward0", "MulBackward0",
               "NativeDropoutBackward0", "AddBackward0", "ViewBackward0",
               "UnsafeViewBackward0", "ReshapeAliasBackward0", "CloneBackward0"}


class FeatureAxisReadouts(FirstStepsReader):
    """A reader of ``graph_walks.ForwardGraph``."""
    steps = STEPS_MEASURED

    def keep(self, step, nodes):
        for reduction, shape in measure_readouts(nodes):
            self.observed.feature_axis_readouts.append((step, reduction, list(shape)))


def measure_readouts(nodes):
    """[(reduction, reduced shape)] of the layers reading a reduction over a layer's
    features in ``nodes`` (module doc)."""
    found = []
    for node in nodes:
        if type(node).__name__ not in LAYERS:
            continue
        for child, _ in node.next_functions:
            if child is None or type(child).__name__ not in REDUCTIONS:
                continue
            shape = tuple(getattr(child, "_saved_self_sym_sizes", ()) or ())
            dims = tuple(getattr(child, "_saved_dim", ()) or ())
            if len(shape) < 3 or len(dims) != 1:
                continue
            dim = int(dims[0])
            dim = (dim - 2 ** 64 if dim >= 2 ** 63 else dim) % len(shape)
            if dim != len(shape) - 1:
                continue
            if getattr(child, "_saved_keepdim", False):
                continue
            if _made_by_layer(child, int(shape[-1])):
                found.append((type(child).__name__[:-len("Backward1")].lower(), shape))
    return found


def _made_by_layer(reduction, width):
    """Whether the reduced tensor comes, through elementwise nodes only, from a linear
    layer whose output has ``width`` columns."""
    frontier = [child for child, _ in reduction.next_functions if child is not None]
    for _ in range(ELEMENTWISE_DEPTH + 1):
        below = []
        for child in frontier:
            name = type(child).__name__
            if name in LAYERS:
                sizes = getattr(child, "_saved_mat2_sym_sizes", None)
                return bool(sizes) and int(sizes[-1]) == width
            if name in ELEMENTWISE:
                below += [grand for grand, _ in child.next_functions if grand is not None]
        frontier = below
    return False
