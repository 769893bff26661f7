"""Normalisations whose every group holds ONE value (``run.observed.single_value_norms``;
NORM_OVER_SINGLE_VALUE, ``nndebug.rules.single_value_norms``).

A group norm, a layer norm or an instance norm subtracts the mean of each group of values it
normalises over and divides by their spread. A group of one value is its own mean: the
normalised value is 0, whatever the input, and only the layer's bias comes out. No gradient
passes back through it, so the layers before it stop learning. It happens without an error:
``GroupNorm(C, C)`` (one channel per group) after a global pooling that left 1x1 maps
(pytorch/pytorch#19250), or on a (batch, C) table (pytorch/pytorch#94288); ``LayerNorm(1)``
on a one-unit output; a layer norm whose ``normalized_shape`` names a size-1 axis. Batch
norm and instance norm refuse one value per channel in training mode; the two above do not.

What is read: torch's group-norm and layer-norm nodes in the shared walk of the loss's graph
(``graph_walks.LossGraph``) on the first ``WALK_STEPS`` recorded steps. Their sizes are
attributes the node keeps after the backward (``_saved_C``, ``_saved_HxW``, ``_saved_group``;
``_saved_normalized_shape``): no transfer, nothing per step after those steps. The layer's
name is found among the model's norm modules with the same settings (several names when
several match).
"""
import math

from .graph_walks import FirstStepsReader

WALK_STEPS = 3               # [design] recorded steps read: a model's norms have the same
                             # sizes on every step of an ordinary loop
GROUP_NORM_NODE = "NativeGroupNormBackward0"
LAYER_NORM_NODE = "NativeLayerNormBackward0"


class SingleValueNorms(FirstStepsReader):
    """A reader of ``graph_walks.LossGraph``: one row per norm node whose groups hold one
    value, on each of the first steps."""
    steps = WALK_STEPS

    def __init__(self, observed, model):
        super().__init__(observed)
        self._modules = []
        try:
            self._modules = [(name, m) for name, m in model.named_modules()
                             if type(m).__name__ in ("GroupNorm", "LayerNorm")]
        except Exception:            # a model without named_modules: the rows go unnamed
            pass

    def keep(self, step, nodes):
        for node in nodes:
            row = single_value_norm(node)
            if row is not None:
                kind, groups, channels, per_group = row
                self.observed.single_value_norms.append(
                    (step, kind, self._names(kind, groups, channels), groups, channels,
                     per_group))

    def _names(self, kind, groups, channels):
        if kind == "GroupNorm":
            return [n for n, m in self._modules if type(m).__name__ == kind and
                    m.num_groups == groups and m.num_channels == channels]
        return [n for n, m in self._modules if type(m).__name__ == kind and
                math.prod(m.normalized_shape) == 1]


def single_value_norm(node):
    """``(layer kind, groups, channels, values per group)`` of a group-norm or layer-norm
    node that normalises groups of one value, else None."""
    kind = type(node).__name__
    if kind == GROUP_NORM_NODE:
        channels, spatial, groups = (int(getattr(node, f"_saved_{a}"))
                                     for a in ("C", "HxW", "group"))
        if groups > 0 and channels % groups == 0 and channels // groups * spatial == 1:
            return "GroupNorm", groups, channels, 1
    elif kind == LAYER_NORM_NODE:
        shape = tuple(int(n) for n in node._saved_normalized_shape)
        if shape and math.prod(shape) == 1:
            return "LayerNorm", 1, 1, 1
    return None
