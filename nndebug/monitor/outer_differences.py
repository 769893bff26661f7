"""A prediction minus a target that broadcast into a batch-by-batch table
(``run.observed.outer_differences``; LOSS_BROADCAST_OVER_BATCH,
``nndebug.rules.outer_differences``).

A hand-written regression loss - ``((output - target) ** 2).mean()``,
``(target - output).abs().mean()`` - compares each output with its own target only when
the two have the same shape. A model's ``(N, 1)`` column against ``(N,)`` targets (or the
other way round) broadcasts into an ``(N, N)`` table: every output minus every target. The
mean of that table is smallest when every output is the mean of the batch's targets, so
the loss falls a little and the model learns nothing about each sample. The loss modules
warn about such shapes (LOSS_SHAPE_MISMATCH reads those calls); plain tensor arithmetic is
silent.

In the loss's graph (torch) that is a subtraction (``SubBackward0``) whose result is a
square ``(N, N)`` table, one of whose operands is in the graph with ``N`` values as a column
or a vector - the model's side - while the other is not (a tensor without gradient: the
targets), and whose result is squared or taken absolute and then reduced: an error term,
not a kernel (a Gaussian kernel between generated and real samples, as MMD computes,
scales its squares before reducing). A loss that also holds a pairwise difference of the
model's outputs among themselves (energy distance, pairwise ranking) compares every pair
on purpose; then nothing is kept. The shapes come from the nodes' input metadata (kept
after backward, unlike their saved tensors).

Walked on the loss's graph of the first ``WALK_STEPS`` recorded steps only, ``WALK_LIMIT``
nodes at most: no per-step cost after them. ``outer_differences(nodes)`` reads a list of
graph nodes, so that a shared walk of the graph can hand it its nodes. Kept as
``run.observed.outer_differences``: ``[(step, [table shape], [graph operand shape])]``.
"""
WALK_STEPS = 3            # [design] recorded steps walked: an ordinary loop's loss graph
                          # has the same shape on every step
WALK_LIMIT = 4096         # [design] graph nodes visited per walk at most (a 12-layer
                          # transformer's loss graph is ~1,500 nodes)
FOUND_PER_STEP = 4        # [design] differences kept per step
MIN_ROWS = 2              # [convention] a batch of one compares its one pair correctly
DIFFERENCES = {"SubBackward0"}
ERRORS = {"PowBackward0", "AbsBackward0", "MulBackward0"}    # d ** 2, |d|, d * d
REDUCTIONS = {"MeanBackward0", "MeanBackward1", "SumBackward0", "SumBackward1"}


class OuterDifferences:
    def __init__(self, adapter, observed, on_error):
        self.framework, self.observed, self.on_error = adapter.framework, observed, on_error
        self.walks = 0

    def on_loss(self, step, loss):
        """A recorded step ended with ``loss``: walk its graph on the first few steps."""
        if self.framework != "torch" or self.walks >= WALK_STEPS:
            return
        self.walks += 1
        try:
            found = outer_differences(graph_nodes(getattr(loss, "grad_fn", None)))
            self.observed.outer_differences.extend((step, table, operand)
                                                   for table, operand in found)
        except Exception as error:           # a measurement never breaks the user's step
            self.on_error(error)


def graph_nodes(root):
    """The nodes under ``root`` (each once, ``WALK_LIMIT`` at most), root first."""
    nodes, seen, stack = [], set(), [root]
    while stack and len(nodes) < WALK_LIMIT:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        nodes.append(node)
        stack.extend(child for child, _ in getattr(node, "next_functions", ()))
    return nodes


def outer_differences(nodes):
    """[(table shape, graph operand shape)] of each error term, among ``nodes``, that
    subtracts a target from a prediction across the batch (see the module doc)."""
    parents = {}
    for node in nodes:
        for child in _children(node):
            if child is not None:
                parents.setdefault(child, []).append(node)
    found, pairwise = [], False
    for node in nodes:
        if type(node).__name__ not in DIFFERENCES:
            continue
        table, children = _shape(node), _children(node)
        if not _square_table(table) or len(children) != 2:
            continue
        in_graph = [child for child in children if child is not None]
        if len(in_graph) == 2:
            pairwise = True          # the model's outputs against each other: on purpose
            continue
        operand = _shape(in_graph[0]) if in_graph else None
        rows = table[0]
        if operand in ((rows, 1), (rows,)) and _error_then_reduced(node, parents) \
                and len(found) < FOUND_PER_STEP:
            found.append((list(table), list(operand)))
    return [] if pairwise else found


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


def _error_then_reduced(node, parents):
    """Whether every use of the difference squares it or takes its absolute value, and
    every use of that is a sum or a mean."""
    uses = parents.get(node, [])
    if not uses or any(type(use).__name__ not in ERRORS for use in uses):
        return False
    for use in uses:
        if type(use).__name__ == "MulBackward0" and not _squares(use):
            return False                  # d * weights: not an error term
        reduced = parents.get(use, [])
        if not reduced or any(type(r).__name__ not in REDUCTIONS for r in reduced):
            return False
    return True


def _squares(product):
    """Whether a product multiplies a difference by itself: one node twice, or two
    subtractions of the same operands (``(out - y) * (out - y)`` builds two)."""
    first, second = (_children(product) + [None, None])[:2]
    if first is None or second is None:
        return False
    return first is second or (type(first).__name__ in DIFFERENCES and
                               type(second).__name__ in DIFFERENCES and
                               _children(first) == _children(second))
