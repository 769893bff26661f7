"""Skip connections joined with ``*`` instead of ``+`` inside the model's forward
(``run.observed.multiplied_skips``; RESIDUAL_MULTIPLIED, ``nndebug.rules.multiplied_skips``).

``x = x * self.mlp(self.norm(x))`` (ChristophReich1996/MaxViT#8, where ``+`` was meant)
does not add a correction to the block's input: it rescales every feature by a number a
sub-network computes from it. Nothing routes the input around the block, the stream
shrinks or grows from block to block, and the model trains worse.

In torch's graph the product is a ``MulBackward0`` whose two operands have one shape and
where one operand (the branch) is the output of a learned affine layer (a Linear's addmm
or matmul, a convolution; views, a bias addition and dropout above it aside) whose input
chain reaches the OTHER operand's node directly: walking down from the branch through
its layers, activations and norms, the other operand is met before any residual addition
or concatenation (``BRANCH_STOPS``). What is not counted, so what stays silent:

- gates: squeeze-and-excitation, ``x * sigmoid(...)``, SiLU/GELU written by hand, GLU
  and SwiGLU (the branch ends in a bounded activation or an addition of a constant, or
  neither operand is computed from the other);
- FiLM and other conditioning (the branch is computed from another input);
- a product broadcast over axes (a per-channel scale);
- a product summed back with the same operand right after (``x0 * lin(x0) + x0``, a
  deep-and-cross layer), which keeps a path around the product.

Read from the shared walk of the forward's graph (``graph_walks.ForwardGraph``) on the
first ``MULTIPLIED_SKIP_STEPS`` recorded steps: the saved operands' shapes, no host
transfer, nothing per step after them.
"""
from .graph_walks import FirstStepsReader

MULTIPLIED_SKIP_STEPS = 3        # [design] recorded steps read: the forward's wiring is the
                                 # same on every step
MULTIPLIED_SKIP_BRANCH_NODES = 200   # [design] nodes walked down one branch looking for the
                                 # other operand: an MLP or attention branch is a few dozen
MULTIPLIED_SKIP_ROWS = 8         # [design] products kept per step (the rule names the first)
PRODUCTS = {"MulBackward0"}
AFFINE = {"AddmmBackward0", "MmBackward0", "ConvolutionBackward0", "LinearBackward0"}
SHAPE_ONLY = {"ViewBackward0", "UnsafeViewBackward0", "ReshapeAliasBackward0",
              "CloneBackward0", "NativeDropoutBackward0", "PermuteBackward0",
              "TransposeBackward0"}
# a residual addition or a concatenation ends a branch: below it lies an earlier block
BRANCH_STOPS = {"AddBackward0", "AddBackward1", "CatBackward0", "SubBackward0"}
LEAF = "AccumulateGrad"


class MultipliedSkips(FirstStepsReader):
    """A reader of ``graph_walks.ForwardGraph``: (step, products found, their shapes)."""
    steps = MULTIPLIED_SKIP_STEPS

    def keep(self, step, nodes):
        found = find_multiplied_skips(nodes)
        self.observed.multiplied_skips.append(
            (step, len(found), [list(shape) for shape in found[:MULTIPLIED_SKIP_ROWS]]))


def find_multiplied_skips(nodes):
    """The shapes of the products among ``nodes`` that join a branch to its own input
    (module doc)."""
    products = [node for node in nodes
                if type(node).__name__ in PRODUCTS and len(node.next_functions) == 2]
    if not products:
        return []
    readded = _operands_added_back(nodes)
    found = []
    for node in products:
        shape = _equal_operand_shape(node)
        if shape is None:
            continue
        (first, _), (second, _) = node.next_functions
        for stream, branch in ((first, second), (second, first)):
            if stream is None or branch is None or type(stream).__name__ == LEAF:
                continue
            if (id(node), id(stream)) in readded:
                continue
            if _is_affine_output(branch) and _reaches_before_a_join(branch, stream):
                found.append(shape)
                break
    return found


def _equal_operand_shape(node):
    """The operands' common shape (2+ axes), or None when they differ or were not saved."""
    first = getattr(node, "_saved_self", None)
    second = getattr(node, "_saved_other", None)
    if first is None or second is None:
        return None
    if tuple(first.shape) != tuple(second.shape) or len(first.shape) < 2:
        return None
    return tuple(int(n) for n in first.shape)


def _is_affine_output(node):
    """Whether ``node`` is a learned affine layer's output (views, a bias addition and
    dropout above it aside)."""
    for _ in range(8):
        name = type(node).__name__
        if name in AFFINE:
            return True
        if name in SHAPE_ONLY and node.next_functions:
            node = node.next_functions[0][0]
        elif name == "AddBackward0" and _bias_input(node) is not None:
            node = _bias_input(node)
        else:
            return False
        if node is None:
            return False
    return False


def _bias_input(node):
    """The non-parameter input of ``input + bias`` (None when it is not such a sum)."""
    children = [child for child, _ in node.next_functions]
    if len(children) != 2 or None in children:
        return None
    kinds = [type(child).__name__ for child in children]
    if kinds.count(LEAF) != 1:
        return None
    return children[1] if kinds[0] == LEAF else children[0]


def _reaches_before_a_join(branch, stream):
    """Whether walking down from ``branch`` meets ``stream`` before any residual addition
    or concatenation (other than a bias addition), within the branch node budget."""
    seen, stack, walked = {branch}, [branch], 0
    while stack and walked < MULTIPLIED_SKIP_BRANCH_NODES:
        node = stack.pop()
        walked += 1
        for child, _ in node.next_functions:
            if child is None or child in seen:
                continue
            if child is stream:
                return True
            seen.add(child)
            name = type(child).__name__
            if name == LEAF or (name in BRANCH_STOPS and _bias_input(child) is None):
                continue
            stack.append(child)
    return False


def _operands_added_back(nodes):
    """{(product node id, operand node id)} for products summed right after with one of
    their own operands (``a * f(a) + a``)."""
    pairs = set()
    for node in nodes:
        if type(node).__name__ not in ("AddBackward0", "AddBackward1"):
            continue
        children = [child for child, _ in node.next_functions if child is not None]
        for product in children:
            if type(product).__name__ not in PRODUCTS:
                continue
            operands = {id(child) for child, _ in product.next_functions if child is not None}
            for other in children:
                if other is not product and id(other) in operands:
                    pairs.add((id(product), id(other)))
    return pairs
