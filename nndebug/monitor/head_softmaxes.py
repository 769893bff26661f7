"""Attention softmaxes taken over more than the keys each weight is applied to
(``run.observed.head_softmaxes``; SOFTMAX_ACROSS_HEADS, ``nndebug.rules.head_softmaxes``).

Multi-head attention written by hand gives each head its own distribution over the keys:
``scores.softmax(-1)`` on (B, heads, queries, keys). Flattening the scores first,
``F.softmax(weights.flatten(2), dim=-1).view(weights.size())`` on (B, queries, heads, keys)
(facebookresearch/detr#247, where ``flatten(3)`` was meant), makes ONE softmax over every
head's keys at once: the heads share one unit of attention, a head whose scores are lower
gets almost no weight anywhere, and nothing fails.

What shows it in torch's graph, judged on shapes alone: a ``SoftmaxBackward0`` whose input
is a reshape that merged two or more axes into the normalised one, and whose output
(through views, transposes, expansions, dropout) is the weight operand of a matrix product
that contracts FEWER numbers than the softmax normalised over - a whole multiple of them:
each weight row is applied in pieces, so the pieces no longer sum to one. A softmax over a
merged spatial axis that a product contracts whole (attention pooling over H x W pixels),
over classes or experts, or over one axis (slot attention's softmax over slots, contracted
over inputs: no merged axis) is not counted.

Read from the shared walk of the forward's graph (``graph_walks.ForwardGraph``) on the
first ``HEAD_SOFTMAX_STEPS`` recorded steps: node types and saved shapes, no host transfer,
nothing per step after them.
"""
from .graph_walks import FirstStepsReader, saved_axis

HEAD_SOFTMAX_STEPS = 3         # [design] recorded steps read: the forward's wiring is the same
                               # on every step
HEAD_SOFTMAX_CLIMB = 12        # [design] shape-moving nodes followed up from the softmax to
                               # the product that applies its weights (view, transpose,
                               # expand, reshape, dropout: about six in hand-written attention)
HEAD_SOFTMAX_ROWS = 8          # [design] softmaxes kept per step
SOFTMAXES = {"SoftmaxBackward0"}
RESHAPES = {"ViewBackward0", "UnsafeViewBackward0", "ReshapeAliasBackward0"}
PASS_UP = RESHAPES | {"TransposeBackward0", "TransposeBackward1", "PermuteBackward0",
                      "ExpandBackward0", "CloneBackward0", "NativeDropoutBackward0",
                      "UnsqueezeBackward0", "SqueezeBackward0", "SqueezeBackward1",
                      "MulBackward0", "DivBackward0", "MaskedFillBackward0"}
PRODUCTS = {"BmmBackward0", "MmBackward0"}


class HeadSoftmaxes(FirstStepsReader):
    """A reader of ``graph_walks.ForwardGraph``: (step, [(normalised over, contracted,
    the scores' shape before the merge)])."""
    steps = HEAD_SOFTMAX_STEPS

    def keep(self, step, nodes):
        found = find_head_softmaxes(nodes)
        self.observed.head_softmaxes.append((step, found[:HEAD_SOFTMAX_ROWS]))


def find_head_softmaxes(nodes):
    """[(group size, contracted size, pre-merge shape)] of the softmaxes among ``nodes``
    that normalise over a merged axis a product then applies in pieces (module doc)."""
    candidates = [(node, merged) for node in nodes
                  if type(node).__name__ in SOFTMAXES
                  for merged in [_merged_softmax_input(node)] if merged is not None]
    if not candidates:
        return []
    parents = _parents(nodes)
    found = []
    for node, (group, before) in candidates:
        contracted = _contracted_by_consumer(node, parents)
        if contracted is not None and contracted < group and group % contracted == 0:
            found.append((group, contracted, before))
    return found


def _merged_softmax_input(node):
    """(group size, input shape before its reshape) when the softmax normalises over the
    last axis of a reshape that merged 2+ axes of size > 1 into it; else None."""
    result = getattr(node, "_saved_result", None)
    dim = getattr(node, "_saved_dim", None)
    if result is None or dim is None or not node.next_functions:
        return None
    shape = tuple(int(n) for n in result.shape)
    if not shape or saved_axis(dim, len(shape)) != len(shape) - 1:
        return None
    child = node.next_functions[0][0]
    if child is None or type(child).__name__ not in RESHAPES:
        return None
    before = [int(n) for n in getattr(child, "_saved_self_sym_sizes", ())]
    group, product, merged = shape[-1], 1, 0
    for size in reversed(before):
        if product >= group:
            break
        product *= size
        merged += size > 1
    if product != group or merged < 2:
        return None
    return group, before


def _parents(nodes):
    parents = {}
    for node in nodes:
        for child, _ in node.next_functions:
            if child is not None:
                parents.setdefault(id(child), []).append(node)
    return parents


def _contracted_by_consumer(node, parents):
    """How many numbers the matrix product applying the softmax's weights contracts (the
    weights as its left operand: their last axis; as its right: their second to last),
    found climbing through shape-moving nodes only; None when no such product is met."""
    frontier = [node]
    for _ in range(HEAD_SOFTMAX_CLIMB):
        above = []
        for current in frontier:
            for parent in parents.get(id(current), ()):
                name = type(parent).__name__
                if name in PRODUCTS:
                    return _contracted(parent, current)
                if name in PASS_UP:
                    above.append(parent)
        if not above:
            return None
        frontier = above
    return None


def _contracted(product, operand_node):
    """The contracted size of ``product`` given which of its inputs ``operand_node`` is."""
    left = getattr(product, "_saved_self", None)
    right = getattr(product, "_saved_mat2", None)
    children = [child for child, _ in product.next_functions]
    if left is None or right is None or len(children) != 2:
        return None
    if children[0] is operand_node:
        return int(left.shape[-1])
    if children[1] is operand_node:
        return int(right.shape[-2])
    return None
