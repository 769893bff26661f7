"""Additions inside the model's forward whose two operands are one tensor
(``run.observed.self_additions``).

``x, _ = attn(h, h, h); x = x + x`` (kyegomez/BitNet#32) was meant as a residual
connection, ``x = attn_out + x``: the attention output overwrote the name of the block's
input, so the "residual" adds the attention output to itself. The block's input is lost
(each position's own embedding reaches the head through attention only) and the stream is
doubled at every block; the loss still falls, only more slowly.

In torch's graph such a sum is an ``AddBackward0`` whose two inputs are the same node and
output: nothing else makes one (``y + x`` has two, ``2 * x`` is a multiplication). On the
first ``STEPS_MEASURED`` recorded steps the shared walk of the forward's graph
(``graph_walks.py``) hands its nodes to ``count_self_additions``, which counts those
additions whose operand is an activation (one on a parameter, ``w + w``, is a choice of
initial scale, not a lost input).
"""
STEPS_MEASURED = 3           # [design] recorded steps read: the model's structure is the same
                             # on every step, three show it is not one odd batch


class SelfAdditions:
    """A reader of ``graph_walks.ForwardGraph``."""

    def __init__(self, observed):
        self.observed = observed

    def wants(self, step):
        return len(self.observed.self_additions) < STEPS_MEASURED

    def read(self, step, nodes):
        self.observed.self_additions.append((step, count_self_additions(nodes)))


def count_self_additions(nodes):
    """The ``AddBackward0`` nodes among ``nodes`` whose two inputs are one activation."""
    found = 0
    for node in nodes:
        inputs = node.next_functions
        if type(node).__name__ == "AddBackward0" and len(inputs) == 2 and \
                inputs[0][0] is not None and inputs[0] == inputs[1] and \
                type(inputs[0][0]).__name__ != "AccumulateGrad":
            found += 1
    return found
