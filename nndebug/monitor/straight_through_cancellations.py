"""Straight-through estimators written without their detach
(``run.observed.straight_through_cancellations``).

A straight-through estimator passes a non-differentiable value (a quantised code, a
rounded weight) forward and the gradient of its input backward:
``x + (q - x).detach()``. Without the detach, ``x + (q - x)`` still has the value ``q``,
but ``x`` now enters twice with opposite signs and its two gradients cancel exactly: the
layers that made ``x`` get nothing from anything downstream (NTU-AIoT-Lab/EfficientFi#4,
a VQ encoder that the reconstruction loss never reached).

In torch's graph that is an ``AddBackward0`` with one input ``x`` and the other a
``SubBackward0`` of ``(q, x)`` - the same node and output twice (or ``x - (x - q)``,
``(q - x) + x``). An interpolation ``x + a * (q - x)`` has a multiplication in between and
does not match; with the detach, the subtraction is no input of the sum at all. Only a
``q`` that carries no gradient to ``x`` counts (a constant, a codebook row, ``x.round()``):
``x + (f(x) - x)`` is a roundabout ``f(x)`` whose gradient still reaches ``x``.

On the first ``STEPS_MEASURED`` recorded steps the shared walk of the forward's graph
(``graph_walks.py``; the loss above the outputs is not walked) hands its nodes to
``count_cancelled_straight_throughs``.
"""
from .graph_walks import WALK_LIMIT

STEPS_MEASURED = 3           # [design] recorded steps read: the model's structure is the same
                             # on every step, three show it is not one odd batch
ADD, SUB = "AddBackward0", "SubBackward0"
ZERO_DERIVATIVE = {"RoundBackward0", "RoundBackward1", "FloorBackward0", "CeilBackward0",
                   "TruncBackward0", "SignBackward0"}   # [convention] torch's backward of
                                                        # round/floor/ceil/trunc/sign: zeros


class StraightThroughCancellations:
    """A reader of ``graph_walks.ForwardGraph``."""

    def __init__(self, observed):
        self.observed = observed

    def wants(self, step):
        return len(self.observed.straight_through_cancellations) < STEPS_MEASURED

    def read(self, step, nodes):
        self.observed.straight_through_cancellations.append(
            (step, count_cancelled_straight_throughs(nodes)))


def count_cancelled_straight_throughs(nodes):
    """How many of ``nodes`` compute ``x + (q - x)`` (or ``(q - x) + x``, ``x - (x - q)``)
    with ``q`` independent of ``x``: sums whose ``x`` gradients cancel."""
    return sum(1 for node in nodes if _cancelled_operand(node) is not None)


def _cancelled_operand(node):
    """The (node, output) edge whose gradients cancel in ``node``, or None."""
    name = type(node).__name__
    if name not in (ADD, SUB) or getattr(node, "_saved_alpha", 1) != 1:
        return None
    edges = node.next_functions
    if len(edges) != 2 or edges[0][0] is None or edges[1][0] is None:
        return None
    for outer, inner in ((0, 1), (1, 0)):
        difference = edges[inner][0]
        if type(difference).__name__ != SUB or getattr(difference, "_saved_alpha", 1) != 1:
            continue
        pair = difference.next_functions
        if len(pair) != 2:
            continue
        x = edges[outer]
        # x + (q - x), (q - x) + x: x is the subtrahend; x - (x - q): x is the minuend
        cancels = (name == ADD and pair[1] == x) or (name == SUB and outer == 0 and pair[0] == x)
        if not cancels:
            continue
        q = pair[0] if name == ADD else pair[1]
        if q[0] is None or not _carries_gradient_to(q[0], x[0]):
            return x
    return None


def _carries_gradient_to(start, target, limit=WALK_LIMIT):
    """Whether a gradient can flow from ``start`` down to ``target``: ``target`` lies under
    ``start`` other than through an operation whose derivative is zero everywhere it
    exists (``q = x.round()`` is a constant to the gradient; ``q = tanh(x)`` is not)."""
    seen, stack = {start}, [start]
    while stack and len(seen) < limit:
        node = stack.pop()
        if node is target:
            return True
        if type(node).__name__ in ZERO_DERIVATIVE:
            continue
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return False
