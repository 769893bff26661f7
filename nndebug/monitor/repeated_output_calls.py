"""Regression terms of one loss whose predictions are one layer called twice on one input
(``run.observed.repeated_output_calls``; MODULE_REPEATED_IN_CONTAINER,
``nndebug.rules.repeated_modules``).

A two-output model written ``x1 = self.dense2(x); x2 = self.dense2(x)`` - the second head
never built, or a copied line left reading the first head - returns one value under two
names. Each is given its own target (``mse(x1, t1) + mse(x2, t2)``), so the summed loss
pulls the one value to the targets' average and neither target is learned ("when one loss
value decreases, the other increases", discuss.pytorch.org 49447, real-bug batch 269).
Nothing crashes and the loss falls a little; the model simply has one output layer where
two were meant - one module object where several were written, the slip
MODULE_REPEATED_IN_CONTAINER names for a container.

In torch's graph each regression loss node (``MseLossBackward0``, ``SmoothL1LossBackward0``,
``HuberLossBackward0``) lists its prediction first; ``F.l1_loss`` and an error written out
are a power or an absolute value of a difference whose one computed side is the
prediction. Under a chain of one-input steps (a squeeze, a view, a sigmoid, a scale) the
prediction starts at a layer node (``AddmmBackward0``, ``ConvolutionBackward0``, ...). Two
terms whose predictions start at two DIFFERENT layer nodes of one type reading the same
operands (the same weight, the same bias, the same computed input edge) are one layer
called twice on one input: the same values twice. Left alone: one output read by two terms
(a student's output against the labels and against a teacher: one edge, by design), two
slices of one wide output layer (``out[:, 0]``, ``out[:, 1]``: a slice is no one-input
step here), one encoder called on two inputs (a siamese pair: other input edges), and a
layer whose input has no graph (the data a first layer reads cannot be compared by edge).
Node types and edges outlive the backward, so the nodes come from the shared walk of the
loss's graph (``graph_walks.LossGraph``) on the first ``WALK_STEPS`` recorded steps: no
per-step cost after them, no host transfer.
"""
from .graph_walks import FirstStepsReader
from .posterior_draws import NON_NEGATIVE_MAPS, one_output, operand
from .reparameterisations import CHAIN_LIMIT, POINTWISE, inputs_of

WALK_STEPS = 3            # [design] recorded steps read: the loss's graph has the same shape
                          # on every step of an ordinary loop
REGRESSION_NODES = {"MseLossBackward0": "mse_loss", "L1LossBackward0": "l1_loss",
                    "SmoothL1LossBackward0": "smooth_l1_loss",
                    "HuberLossBackward0": "huber_loss"}
# an error written out (and F.l1_loss, which torch builds as abs(input - target)): a power
# or an absolute value of a difference between a computed value and a constant target
DIFFERENCE_MAPS = {"AbsBackward0": "l1_loss", "PowBackward0": "squared error"}
SHAPE_ONLY = ("SqueezeBackward0", "SqueezeBackward1", "SqueezeBackward2",
              "UnsqueezeBackward0", "ViewBackward0", "ReshapeAliasBackward0",
              "UnsafeViewBackward0", "CloneBackward0")   # one-input steps that keep the values
PAIRS_KEPT = 8            # [design] pairs noted per step at most (one is enough to name)


class RepeatedOutputCalls(FirstStepsReader):
    """A reader of ``graph_walks.LossGraph``: one row per step with such pairs."""
    steps = WALK_STEPS

    def keep(self, step, nodes):
        pairs = repeated_calls(nodes)
        if pairs:
            self.observed.repeated_output_calls.append((step, pairs[:PAIRS_KEPT]))


def prediction_head(edge):
    """The edge under ``edge``'s chain of one-input value steps (pointwise maps, squeezes,
    views): where the prediction was computed; None for a chain too long."""
    for _ in range(CHAIN_LIMIT):
        node = edge[0]
        inputs = inputs_of(node)
        name = type(node).__name__
        if name not in POINTWISE + NON_NEGATIVE_MAPS + SHAPE_ONLY or len(inputs) != 1:
            return edge
        edge = inputs[0]
    return None


def repeated_calls(nodes):
    """[(loss name, loss name, layer node type)] for each pair of regression terms among
    ``nodes`` whose predictions start at two calls of one layer on one input."""
    heads = []
    for node in nodes:
        name, prediction = predicted_edge(node)
        head = None if prediction is None else prediction_head(prediction)
        if head is not None:
            heads.append((name, head))
    found = []
    for i, (first, a) in enumerate(heads):
        for second, b in heads[i + 1:]:
            if a[0] is not b[0] and one_output(a, b) and reads_computed_input(a[0]):
                found.append((first, second, type(a[0]).__name__))
    return found


def reads_computed_input(layer):
    """Whether the layer node reads a computed value besides its parameters: only then do
    equal operands mean one input (the data a first layer reads has no graph to compare;
    one encoder called on a siamese pair's two inputs lists only its weights)."""
    return any(type(operand(edge)).__name__ != "AccumulateGrad" for edge in inputs_of(layer))


def predicted_edge(node):
    """(loss name, the edge of its prediction) for a regression loss node or an error
    written out (``(pred - y) ** 2``, ``abs(pred - y)`` against a target without a graph);
    (None, None) for any other node."""
    parents = getattr(node, "next_functions", ())
    name = REGRESSION_NODES.get(type(node).__name__)
    if name is not None:
        return (name, parents[0]) if parents and parents[0][0] is not None else (None, None)
    name = DIFFERENCE_MAPS.get(type(node).__name__)
    inputs = inputs_of(node)
    if name is None or len(inputs) != 1 or type(inputs[0][0]).__name__ != "SubBackward0":
        return None, None
    sides = getattr(inputs[0][0], "next_functions", ())
    computed = [edge for edge in sides if edge[0] is not None]
    if len(sides) != 2 or len(computed) != 1:
        return None, None           # a difference of two computed values is no target error
    return name, computed[0]
