"""A loss that is the reduced probability of each row's picked class, with its sign (real-bug
batch 75: losses written by hand; LOSS_SIGN_FLIPPED, ``rules/loss_signs.py``).

``sm_acts[idx, targ].mean()`` - a softmax's probability of each row's label, averaged - is
a loss written without its minus sign: minimising it pushes every label's probability DOWN,
and the loss falls smoothly to 0 as the model learns to avoid its labels (fastai/fastbook
#478). ``-sm_acts[idx, targ].mean()`` is the same loss with the sign (minus a probability:
NLL_ON_PROBABILITIES names its weakness, ``maximised_probabilities.py``).

Read off the loss's graph (the shared walk, ``graph_walks.LossGraph``), on the first
``PICKED_WALK_STEPS`` recorded steps only: from the loss's root, through signs (``-x``,
``1 - x``) and constant factors (one computed operand each), down to ONE whole reduction
(mean or sum), under it a pick of one value per row (``IndexBackward0``,
``GatherBackward0``: the label's column, indexed by a tensor), and under that, through
views and squeezes, a softmax or a sigmoid. Kept in
``observed.picked_probability_losses``: ``[(step, "softmax" or "sigmoid", "mean" or
"sum", sign, classes, values reduced)]``: sign +1 when the loss rises with the picked
probabilities (they are minimised), classes the width of the softmax's axis (1 for a
sigmoid's), values reduced the count the reduction ran over (the sum's scale).

The node shapes outlive the backward (``_input_metadata``, the reductions' saved sizes);
no saved tensor is read. Cost: at most ``PICKED_LOOK_DOWN`` nodes looked at per walk.
"""
from .graph_walks import FirstStepsReader

PICKED_WALK_STEPS = 3      # [design] recorded steps read (a loop's loss has one form)
PICKED_LOOK_DOWN = 10      # [design] nodes followed down from the root at most
PICKED_PROBABILITIES = {"SoftmaxBackward0": "softmax", "SigmoidBackward0": "sigmoid"}
PICKED_REDUCTIONS = {"MeanBackward0": "mean", "MeanBackward1": "mean", "SumBackward0": "sum",
                     "SumBackward1": "sum"}
PICKED_SIGNS = {"NegBackward0": -1, "RsubBackward1": -1, "RsubBackward0": -1}
# one computed operand above the reduction: a constant factor or divisor, + c
PICKED_SCALES = {"MulBackward0", "MulBackward1", "DivBackward0", "DivBackward1",
                 "AddBackward1", "SubBackward1", "AddBackward0", "SubBackward0"}
PICKS = {"IndexBackward0", "GatherBackward0"}
PICKED_VIEWS = {"SqueezeBackward0", "SqueezeBackward1", "SqueezeBackward2",
                "UnsqueezeBackward0", "ViewBackward0", "ReshapeAliasBackward0",
                "UnsafeViewBackward0", "CloneBackward0"}


def _computed(node):
    return [child for child, _ in getattr(node, "next_functions", ()) if child is not None]


def _reduced_count(node):
    try:
        numel = 1
        for size in node._saved_self_sym_sizes:
            numel *= int(size)
        return numel
    except (AttributeError, RuntimeError, TypeError):
        return None


def _classes(node, function):
    if function == "sigmoid":
        return 1
    try:
        shape = node._input_metadata[0].shape
        return int(shape[node._saved_dim])
    except (AttributeError, RuntimeError, IndexError, TypeError):
        return None


def picked_probability_loss(root):
    """(function, reduction, sign, classes, values reduced) when the loss ``root`` is, up to
    signs and constants, a reduction of one picked probability per row (module doc)."""
    node, sign, reduction, reduced, picked = root, 1, None, None, False
    for _ in range(PICKED_LOOK_DOWN):
        name = type(node).__name__
        if name in PICKED_PROBABILITIES:
            function = PICKED_PROBABILITIES[name]
            if not (reduction and picked):
                return None
            return function, reduction, sign, _classes(node, function), reduced
        children = _computed(node)
        if len(children) != 1:
            return None
        if name in PICKED_REDUCTIONS:
            if reduction is not None:
                return None
            reduction, reduced = PICKED_REDUCTIONS[name], _reduced_count(node)
        elif name in PICKED_SIGNS:
            if reduction is not None:
                return None             # 1 - p below the mean: another quantity
            sign *= PICKED_SIGNS[name]
        elif name in PICKS:
            if reduction is None or picked:
                return None
            picked = True
        elif name in PICKED_VIEWS:
            pass
        elif name not in PICKED_SCALES or reduction is not None:
            return None                 # a weight per element below the reduction
        node = children[0]
    return None


class PickedProbabilityLosses(FirstStepsReader):
    """A reader of ``graph_walks.LossGraph``: keeps one row per walk that finds the form."""
    steps = PICKED_WALK_STEPS

    def keep(self, step, nodes):
        found = picked_probability_loss(nodes[0]) if nodes else None
        if found is not None:
            self.observed.picked_probability_losses.append((int(step), *found))
