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

The same pool can be BROADCAST BACK: a set encoder that gives each element a pooled context
(PointNet's segmentation head, a DeepSets-style block) takes ``net.max(dim, keepdim=True)``,
expands it to the elements' shape and concatenates it beside their features for the next
layer. Taken over the feature axis (``dim=-1`` on (clouds, points, features) - neuromorph's
ResnetECPos, facebookresearch/neuromorph#2) every element's "context" is its own largest
feature: no element hears of the others. Also kept: a layer reading, through views and a
``cat`` only, an ``ExpandBackward0`` of a keepdim mean, sum or max (``MaxBackward0``,
``AmaxBackward0``) over the last axis of a layer's output, that axis its features; its
reduction is written ``"<max|mean|sum>" + BROADCAST_BACK``. A context pooled over the
points (``dim=1``), a Conv1d layout pooled over its last axis (a convolution made it) and a
norm of each row dividing that row (no expand, no cat) are not kept.

Cost: a name check per walked node on the first three recorded steps; nothing on the
device.
"""
from .graph_walks import FirstStepsReader, saved_axis

STEPS_MEASURED = 3           # [design] recorded steps walked
ELEMENTWISE_DEPTH = 4        # [design] elementwise nodes allowed between the producing layer
                             # and the reduction (an activation, a dropout, a view)
LAYERS = {"AddmmBackward0", "MmBackward0"}
REDUCTIONS = {"MeanBackward1", "SumBackward1"}
POOLS_BROADCAST = REDUCTIONS | {"MaxBackward0", "AmaxBackward0"}   # keepdim pools that may be
                                                                  # expanded back
BROADCAST_BACK = ", broadcast back"   # suffix of the reduction of a broadcast-back pool
PASSING = {"ViewBackward0", "UnsafeViewBackward0", "ReshapeAliasBackward0", "CatBackward0"}
PASSING_DEPTH = 3            # [design] views and one cat between the reading layer and the
                             # expand (a Linear on 3-D input adds a view; the concat one cat)
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
            if saved_axis(dims[0], len(shape)) != len(shape) - 1:
                continue
            if getattr(child, "_saved_keepdim", False):
                continue
            if _made_by_layer(child, int(shape[-1])):
                found.append((type(child).__name__[:-len("Backward1")].lower(), shape))
        found += _broadcast_back_pools(node)
    return found


def _reduced_axis(node):
    """(shape, the one reduced axis counted from 0) of a reduction node, or None."""
    shape = tuple(getattr(node, "_saved_self_sym_sizes", ()) or ())
    if not shape and type(node).__name__ == "AmaxBackward0":   # saves the input itself
        shape = tuple(node._saved_self.shape)                  # (a view: no copy)
    dims = getattr(node, "_saved_dim", ())
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if len(shape) < 3 or len(dims) != 1:
        return None
    return shape, saved_axis(dims[0], len(shape))


def _broadcast_back_pools(layer):
    """[(reduction + BROADCAST_BACK, reduced shape)] of keepdim pools over a layer's
    features that ``layer`` reads expanded back to the elements' shape (module doc)."""
    found, frontier = [], [child for child, _ in layer.next_functions if child is not None]
    for _ in range(PASSING_DEPTH + 1):
        below = []
        for child in frontier:
            name = type(child).__name__
            if name == "ExpandBackward0":
                found += _pool_under_expand(child)
            elif name in PASSING:
                below += [grand for grand, _ in child.next_functions if grand is not None]
        frontier = below
    return found


def _pool_under_expand(expand):
    """The pool an expand broadcasts, when it is a keepdim pool over a layer's features."""
    sizes = tuple(getattr(expand, "_saved_self_sym_sizes", ()) or ())
    if not sizes or int(sizes[-1]) != 1:
        return []
    for pool, _ in expand.next_functions:
        name = type(pool).__name__ if pool is not None else ""
        if name not in POOLS_BROADCAST or not getattr(pool, "_saved_keepdim", False):
            continue
        measured = _reduced_axis(pool)
        if measured is None or measured[1] != len(measured[0]) - 1:
            continue
        if _made_by_layer(pool, int(measured[0][-1])):
            kind = name[:-len("Backward0")] if name.endswith("0") else name[:-len("Backward1")]
            return [(kind.lower().replace("amax", "max") + BROADCAST_BACK, measured[0])]
    return []


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
