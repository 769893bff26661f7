"""A prediction and a target combined into a batch-by-batch table
(``run.observed.outer_differences``; LOSS_BROADCAST_OVER_BATCH,
``nndebug.rules.outer_differences``).

A hand-written loss - ``((output - target) ** 2).mean()``, ``(target - output).abs()
.mean()``, ``-(y * log(p) + (1 - y) * log(1 - p)).mean()`` - compares each output with its
own target only when the two have the same shape. A model's ``(N, 1)`` column against
``(N,)`` targets (or the other way round) broadcasts into an ``(N, N)`` table: every output
against every target. Its mean is smallest when every output fits the batch's targets on
average, so the loss falls a little and the model learns nothing about each sample. The
loss modules warn about such shapes (LOSS_SHAPE_MISMATCH reads those calls); plain tensor
arithmetic is silent.

In the loss's graph (torch) that is a subtraction or a product (``SubBackward0``,
``MulBackward0``) whose result is a square ``(N, N)`` table, one of whose operands is in
the graph with one value per sample (a column, a row or a vector: the model's side) while
the other is not (a tensor without gradient: the targets), and whose table is then only
combined elementwise (squares, absolute values, logs, sums of such tables) and reduced by
a sum or a mean: an error term. Reshaping that keeps the table whole on the way (an
``unsqueeze`` before a ``cat`` of several quantile heads' tables, a ``view``) is followed
through: TorchCP's pinball loss stacks ``max((q - 1) * e, q * e).unsqueeze(1)`` per quantile
(ml-stat-Sustech/TorchCP#27). A kernel between generated and real samples (MMD) takes an
exponential of its table, and a pairwise loss over the model's outputs among themselves
(energy distance, ranking) compares every pair on purpose: neither is kept. The shapes come
from the nodes' input metadata (kept after backward, unlike their saved tensors).

``outer_differences(nodes)`` reads the nodes of the shared walk of the loss's graph
(``graph_walks.LossGraph``) on the first ``WALK_STEPS`` recorded steps only: no per-step
cost after them. Kept as
``run.observed.outer_differences``: ``[(step, [table shape], [graph operand shape])]``.
"""
from .graph_walks import FirstStepsReader

WALK_STEPS = 3            # [design] recorded steps walked: an ordinary loop's loss graph
                          # has the same shape on every step
FOUND_PER_STEP = 4        # [design] tables kept per step
MIN_ROWS = 2              # [convention] a batch of one compares its one pair correctly
PRODUCERS = {"SubBackward0", "MulBackward0"}    # output - target, target * log(p)
ELEMENTWISE = {"PowBackward0", "AbsBackward0", "MulBackward0", "AddBackward0", "SubBackward0",
               "NegBackward0", "DivBackward0", "LogBackward0", "ClampBackward1",
               "ClampMinBackward0", "MaximumBackward0"}   # what an error term is built of;
                                                          # no exp: a kernel (MMD) is meant
REDUCTIONS = {"MeanBackward0", "MeanBackward1", "SumBackward0", "SumBackward1"}
RESHAPES = {"UnsqueezeBackward0", "SqueezeBackward0", "SqueezeBackward1", "ViewBackward0",
            "UnsafeViewBackward0", "CatBackward0", "StackBackward0"}   # moves the table's
                                      # entries without mixing them: followed while the
                                      # result still holds two axes of the batch's size

class OuterDifferences(FirstStepsReader):
    """A reader of ``graph_walks.LossGraph``."""
    steps = WALK_STEPS

    def keep(self, step, nodes):
        self.observed.outer_differences.extend((step, table, operand)
                                               for table, operand in outer_differences(nodes))


def outer_differences(nodes):
    """[(table shape, graph operand shape)] of each error term, among ``nodes``, that
    combines a target with a prediction across the batch (see the module doc)."""
    parents = None          # child -> its parents, built when a candidate needs it
    found, pairwise = [], False
    for node in nodes:
        if type(node).__name__ not in PRODUCERS:
            continue
        table, children = _shape(node), _children(node)
        if table is None or len(children) != 2:
            continue
        in_graph = [child for child in children if child is not None]
        operands = [_shape(child) for child in in_graph]
        if _square_table(table):
            rows = table[0]
            if len(in_graph) == 2 and all(_one_per_row(shape, rows) for shape in operands):
                pairwise = True      # the model's outputs against each other: on purpose
            if len(in_graph) != 1 or not _one_per_row(operands[0], rows):
                continue
        else:
            rows = _rows_broadcast(table, operands[0]) if len(in_graph) == 1 else None
            if rows is None:
                continue
        if len(found) < FOUND_PER_STEP:
            parents = _parents(nodes) if parents is None else parents
            if not _reduced_elementwise(node, parents, rows):
                continue
            found.append((list(table), list(operands[0])))
    return [] if pairwise else found


def _parents(nodes):
    """{child: [its parents among nodes]}: what a node's output went on to."""
    parents = {}
    for node in nodes:
        for child in _children(node):
            if child is not None:
                parents.setdefault(child, []).append(node)
    return parents


def _children(node):
    return [child for child, _ in getattr(node, "next_functions", ())]


def _shape(node):
    """The shape of what the node's forward operation returned (its first output), or None."""
    metadata = getattr(node, "_input_metadata", None)
    if not metadata:
        return None
    shape = getattr(metadata[0], "shape", None)
    return None if shape is None else tuple(int(n) for n in shape)


def _square_table(shape):
    return shape is not None and len(shape) == 2 and shape[0] == shape[1] >= MIN_ROWS


def _rows_broadcast(table, operand):
    """The batch size N when a result of more than two axes is the graph operand's rows
    broadcast against N target rows: the operand holds one axis of N, the result two, and
    the result is exactly N times the operand (real-bug batch 203: mixup's label weight
    shaped (N, 1, 1, 1) for the images mixes the one-hot labels into (N, 1, N, C) targets,
    and their product with the model's (N, C) log-probabilities scores every row against
    every row's target); else None."""
    if table is None or operand is None or len(table) <= 2:
        return None
    size = 1
    for n in operand:
        size *= n
    for rows in sorted(set(operand), reverse=True):
        if rows < MIN_ROWS or list(operand).count(rows) != 1 or \
                sum(1 for n in table if n == rows) < 2:
            continue
        total = 1
        for n in table:
            total *= n
        if total == rows * size:
            return rows
    return None


def _one_per_row(shape, rows):
    """A column ``(N, 1)``, a row ``(1, N)`` or a vector ``(N,)``: one value per sample."""
    return shape in ((rows, 1), (1, rows), (rows,))


def _reduced_elementwise(node, parents, rows):
    """Whether every use of the table, followed up, is elementwise arithmetic on the
    same table (squares, absolute values, logs, sums of such tables) that ends in a sum
    or a mean: an error term. Reshapes that keep the table's two batch axes (unsqueeze,
    view, cat, stack) are followed through. Anything else - an exponential (a kernel), a
    matrix product, a softmax - and the table is meant."""
    stack, seen, reduced = [node], set(), False
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        uses = parents.get(current, [])
        if not uses:
            return False                  # the table itself is the loss: not an error term
        for use in uses:
            name = type(use).__name__
            if name in REDUCTIONS and _holds_table(_shape(use), rows):
                stack.append(use)         # summed over another axis (quantiles): followed
            elif name in REDUCTIONS:
                if _holds_batch_axis(_shape(use), rows):
                    return False          # summed over one batch axis, kept per sample: a
                reduced = True            # risk set, a normaliser - the table is meant
            elif name in ELEMENTWISE and _shape(use) == _shape(current):
                stack.append(use)
            elif name in RESHAPES and _holds_table(_shape(use), rows):
                stack.append(use)
            else:
                return False
    return reduced


def _holds_batch_axis(shape, rows):
    """Whether a reduction's result still has an axis of the batch's size: the table summed
    over one of its axes, a value per sample (``(exp(score)[None, :] * at_risk).sum(1)``,
    a Cox partial likelihood's risk sets; pycox and PathomicFusion write it so), not an
    error term reduced to the loss."""
    return shape is not None and rows in shape


def _holds_table(shape, rows):
    """Whether a reshaped result still has two axes of the batch's size: the (N, N) table
    with unit or stacking axes added, e.g. (N, 1, N) or (N, Q, N)."""
    return shape is not None and sum(1 for n in shape if n == rows) >= 2
