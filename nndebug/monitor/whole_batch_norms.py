"""A batch of rows divided by one norm taken over the whole batch
(``run.observed.whole_batch_norms``; EMBEDDINGS_NORMALIZED_OVER_BATCH,
``nndebug.rules.embedding_norms``).

Cosine similarities, contrastive logits and metric-learning distances want each embedding
scaled to unit length on its own: ``F.normalize(z, dim=1)``, ``z / z.norm(dim=1,
keepdim=True)``. Leave the axis out - ``z / z.norm()``, ``z / torch.linalg.norm(z)``,
``z * torch.rsqrt((z ** 2).sum())``, TensorFlow's ``l2_normalize`` without ``axis`` - and
the whole (N, D) batch is divided by ONE number, its Frobenius norm: each row ends up about
1/sqrt(N) long, every similarity shrinks by N, and a temperature-scaled softmax over the
batch stays near uniform. Nothing fails; the loss sits near its chance value.

In the loss's graph (torch) that is a division (``DivBackward0``, or ``MulBackward0`` by an
inverse square root) of a tensor by a one-value node that is the norm of that very tensor:
a ``LinalgVectorNormBackward0``/``NormBackward*`` whose input node is the dividend's node,
or a square root of a sum of its squares, possibly with an epsilon added or clamped in.
The quotient's shape comes from the node's input metadata (kept after backward, unlike
its saved tensors). Counted only where the quotient is a batch of rows (two or more
dimensions, two or more rows) and not a square matrix (a Gram or kernel matrix divided by
its Frobenius norm, as CKA does, is meant), and where the dividend is computed from the
batch, not a weight (a weight matrix scaled by its own norm is weight normalisation).

Read from the shared walk of the loss's graph (``graph_walks.LossGraph``) on the first
``WALK_STEPS`` recorded steps only: no per-step cost after them. Kept as ``run.observed.whole_batch_norms``:
``[(step, [quotient shape])]`` (a declared field of ``nndebug.observed.Observed``, saved and
loaded with the run).
"""
from .graph_walks import FirstStepsReader

WALK_STEPS = 3            # [design] recorded steps walked: the loss's graph has the same
                          # shape on every step of an ordinary loop
FOUND_PER_STEP = 4        # [design] divisions kept per step
NORMS = {"LinalgVectorNormBackward0", "NormBackward0", "NormBackward1", "NormBackward2",
         "NormBackward3"}
ROOTS = {"SqrtBackward0", "RsqrtBackward0", "PowBackward0"}   # PowBackward0: s ** 0.5
SUMS = {"SumBackward0"}
SQUARES = {"PowBackward0", "MulBackward0"}       # x ** 2 (torch.square too), x * x
EPSILONS = {"AddBackward0", "AddBackward1", "ClampMinBackward0", "ClampBackward1",
            "MaximumBackward0"}                               # norm + eps, norm.clamp(min=eps)
SHAPE_ONLY = {"ViewBackward0", "UnsafeViewBackward0", "ReshapeAliasBackward0",
              "TBackward0", "TransposeBackward0", "PermuteBackward0", "ExpandBackward0",
              "CloneBackward0", "ToCopyBackward0", "SqueezeBackward0", "SqueezeBackward1",
              "UnsqueezeBackward0"}
LEAF = "AccumulateGrad"
LOOK_DOWN = 6             # [design] nodes followed down a norm's chain or a weight's
                          # reshapes: eps, sqrt, sum, square and a view or two


class WholeBatchNorms(FirstStepsReader):
    """A reader of ``graph_walks.LossGraph``."""
    steps = WALK_STEPS

    def keep(self, step, nodes):
        self.observed.whole_batch_norms.extend((step, shape)
                                               for shape in whole_batch_divisions(nodes))


def whole_batch_divisions(nodes):
    """[quotient shape] of each division, among ``nodes``, of a batch of rows by the norm
    of the whole batch (see the module doc)."""
    found = []
    for node in nodes:
        if type(node).__name__ not in ("DivBackward0", "MulBackward0"):
            continue        # asked first: a node's shape costs a metadata object to read
        children = [child for child, _ in getattr(node, "next_functions", ())]
        if len(children) != 2:
            continue
        shape = _shape(node)
        if _batch_of_rows(shape) and _divides_by_own_norm(node, *children):
            found.append(list(shape))
            if len(found) >= FOUND_PER_STEP:
                break
    return found


def _shape(node):
    """The shape of what the node's forward operation returned (its first output), or None."""
    metadata = getattr(node, "_input_metadata", None)
    if not metadata:
        return None
    shape = getattr(metadata[0], "shape", None)
    return None if shape is None else tuple(int(n) for n in shape)


def _batch_of_rows(shape):
    return shape is not None and len(shape) >= 2 and shape[0] >= 2 and \
        not (len(shape) == 2 and shape[0] == shape[1])


def _divides_by_own_norm(node, first, second):
    if first is None or second is None:
        return False
    if type(node).__name__ == "DivBackward0":
        pairs = [(first, second, False)]
    else:                                   # x * rsqrt(sum(x ** 2)), either order
        pairs = [(first, second, True), (second, first, True)]
    return any(_one_value(divisor) and _norm_input(divisor, inverse) is dividend
               and not _from_a_weight(dividend) for dividend, divisor, inverse in pairs)


def _one_value(node):
    shape = _shape(node)
    return shape is not None and all(n == 1 for n in shape)


def _norm_input(node, inverse):
    """The node whose whole-tensor L2 norm ``node`` is (through an epsilon), or None.
    ``inverse``: an inverse square root is wanted (a product), else a norm or a root."""
    for _ in range(LOOK_DOWN):
        name = type(node).__name__
        children = [child for child, _ in getattr(node, "next_functions", ())]
        if name in EPSILONS and children and children[0] is not None:
            node = children[0]
            continue
        if not inverse and name in NORMS and children:
            return children[0]
        if name in ROOTS and children and _root_exponent(node) == (-0.5 if inverse else 0.5):
            return _summed_square(children[0])
        return None
    return None


def _root_exponent(node):
    """0.5 for a square root, -0.5 for an inverse one (``s ** e`` reads its exponent)."""
    name = type(node).__name__
    if name == "SqrtBackward0":
        return 0.5
    if name == "RsqrtBackward0":
        return -0.5
    return getattr(node, "_saved_exponent", None)


def _summed_square(node):
    """x for a node computing (x ** 2).sum() or (x * x).sum() over every element."""
    if node is None or type(node).__name__ not in SUMS or not _one_value(node):
        return None
    square = node.next_functions[0][0]
    name = None if square is None else type(square).__name__
    if name not in SQUARES or name == "PowBackward0" and \
            getattr(square, "_saved_exponent", None) != 2:
        return None
    inputs = [child for child, _ in square.next_functions]
    if name == "MulBackward0" and \
            (len(inputs) != 2 or inputs[0] is not inputs[1]):
        return None
    return inputs[0] if inputs else None


def _from_a_weight(node):
    """True when ``node`` is a parameter, or a parameter reshaped (weight normalisation)."""
    for _ in range(LOOK_DOWN):
        name = type(node).__name__
        if name == LEAF:
            return True
        if name not in SHAPE_ONLY:
            return False
        children = [child for child, _ in getattr(node, "next_functions", ()) if child is not None]
        if len(children) != 1:
            return False
        node = children[0]
    return False
