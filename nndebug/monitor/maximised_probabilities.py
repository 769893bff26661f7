"""A loss that is minus a mean probability: ``-sigmoid(s).mean()`` or
``(1 - sigmoid(s)).mean()`` where the likelihood's log was meant, ``-logsigmoid(s).mean()``
(``run.observed.maximised_probabilities``; NLL_ON_PROBABILITIES, ``rules/loss_side.py``).

Minus a probability is bounded in [-1, 0] and its gradient sigmoid'(s) vanishes at BOTH
ends: the samples the model scores most wrongly are the ones it stops correcting
(RUCAIBox/RecBole#1505, a negative-sampling loss ``-torch.mean(torch.sigmoid(sign *
score))``; maciejkula/spotlight#185, BPR as ``1 - sigmoid(pos - neg)``). The log-likelihood
keeps a gradient of 1 for them.

Read off the loss's graph (the shared walk, ``graph_walks.LossGraph``), on the first
``MAXIMISED_WALK_STEPS`` recorded steps only: the loss's root goes, through signs, constant factors
and ``1 - x`` only (one computed operand each), down to a whole reduction (mean or sum)
whose input is a sigmoid's or a softmax's output, directly or through indexing (a gather
of the right class), a sign or ``1 - p``. A probability weighted per element (an expected
reward, ``-(softmax(s) * reward).sum(1).mean()``) is not counted; neither is a loss that
ADDS such a mean to another term (a gate's sparsity penalty beside a cross-entropy: two
computed operands at its root), nor a sigmoid followed by a square or a log (squared error
on probabilities, a BCE written by hand).
The sign is read from ``NegBackward0`` and ``1 - x`` only: a constant factor's value is
freed with the graph after backward, so ``-0.5 * p.sum()`` reads as minimised (missed).
"""
from .graph_walks import FirstStepsReader

MAXIMISED_WALK_STEPS = 3            # [design] recorded steps walked (the loss has one form a loop)
MAXIMISED_LOOK_DOWN = 8             # [design] nodes followed down from the root at most
MAXIMISED_PROBABILITY_NODES = {"SigmoidBackward0": "sigmoid", "SoftmaxBackward0": "softmax"}
MAXIMISED_REDUCTIONS = {"MeanBackward0": "mean", "SumBackward0": "sum", "MeanBackward1": "mean",
              "SumBackward1": "sum"}
# one computed operand: a sign, a constant factor or divisor, 1 - x, x + c
MAXIMISED_SIGNS = {"NegBackward0": -1, "RsubBackward1": -1, "RsubBackward0": -1}
MAXIMISED_PASS_THROUGH = {"MulBackward0", "MulBackward1", "DivBackward0", "DivBackward1",
                "AddBackward1", "SubBackward1", "AddBackward0", "SubBackward0"}
# a product or quotient is a constant scale above the reduction, but a weight per element
# below it
MAXIMISED_WEIGHTS = {"MulBackward0", "MulBackward1", "DivBackward0", "DivBackward1"}
MAXIMISED_PICKS = {"IndexBackward0", "GatherBackward0", "SelectBackward0", "SqueezeBackward0",
         "SqueezeBackward1", "ViewBackward0", "ReshapeAliasBackward0",
         "UnsafeViewBackward0"}


class MaximisedProbabilities(FirstStepsReader):
    """A reader of ``graph_walks.LossGraph``: keeps (step, function, reduction, sign)."""
    steps = MAXIMISED_WALK_STEPS

    def keep(self, step, nodes):
        found = probability_reduced_at_root(nodes[0]) if nodes else None
        if found is not None:
            self.observed.maximised_probabilities.append((step, *found))


def _computed(node):
    return [child for child, _ in getattr(node, "next_functions", ())
            if child is not None]


def probability_reduced_at_root(root):
    """(function, reduction, sign) when the loss ``root`` is, up to signs and constants, a
    reduction of probabilities (module doc); the sign is -1 when the loss falls as the
    probabilities rise (they are maximised). None otherwise."""
    node, sign, reduction = root, 1, None
    for _ in range(MAXIMISED_LOOK_DOWN):
        name = type(node).__name__
        if name in MAXIMISED_PROBABILITY_NODES:
            return (MAXIMISED_PROBABILITY_NODES[name], reduction, sign) if reduction else None
        children = _computed(node)
        if len(children) != 1:          # two computed operands: a sum of terms, a product
            return None
        if name in MAXIMISED_REDUCTIONS:
            if reduction is not None:
                return None
            reduction = MAXIMISED_REDUCTIONS[name]
        elif name in MAXIMISED_SIGNS:
            sign *= MAXIMISED_SIGNS[name]
        elif name in MAXIMISED_PICKS:
            if reduction is None:       # a pick above the reduction: no whole mean
                return None
        elif name not in MAXIMISED_PASS_THROUGH:
            return None
        elif reduction is not None and name in MAXIMISED_WEIGHTS:
            return None                 # below the mean: a weighted probability (an expected
        node = children[0]              # reward, -(softmax * reward).sum(1)) is no likelihood
    return None
