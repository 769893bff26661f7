"""Messages a graph network gathers and scatters by index in its forward
(``run.observed.scattered_messages``; BATCHED_EDGES_NOT_OFFSET,
``nndebug.rules.batched_edges``).

A graph network written without a dense adjacency passes messages with two index vectors:
``h[senders]`` (or ``index_select``) gathers each edge's message from its sender's row, and
``index_add_`` / ``scatter_add`` / ``scatter_reduce`` along dimension 0 adds it into its
receiver's row. When several graphs are batched into one, their node rows are stacked and
each graph's senders and receivers must be moved by the number of nodes stacked before it
(PyG's ``Batch`` does it; graph_nets' ``GraphsTuple`` built by hand does not). Left
unshifted, every edge of every graph joins rows of the FIRST graph: all the indices stay
in a short first block of the rows, and the other graphs' nodes receive nothing.

On the first ``STEPS_MEASURED`` recorded steps the shared walk of the forward's graph
(``graph_walks.py``) hands its nodes over while they still hold their saved indices: each
scatter along dimension 0 (``IndexAddBackward0``, ``ScatterAddBackward0``,
``ScatterReduceBackward0``) whose message comes, within a few elementwise or linear nodes,
from a gather along dimension 0 (``IndexBackward0`` with one index, ``IndexSelectBackward0``)
of a tensor of at least ``MIN_ROWS`` rows is measured once: the rows of the gathered tensor,
the number of messages, and the highest sender and receiver row + 1. Kept as ``(step, rows,
messages, highest sender + 1, highest receiver + 1)``.

Cost: a name check per walked node; for a graph network, two maxima of index vectors on
the first three recorded steps (one host read each).
"""
from .graph_walks import FirstStepsReader

STEPS_MEASURED = 3           # [design] recorded steps walked: three batches of graphs show
                             # the indices are not one odd batch's
MIN_ROWS = 16                # [design] a graph of fewer nodes is measured by no one
KEPT_PER_STEP = 4            # [design] scatters measured per forward (two or three layers)
SEARCH_DEPTH = 4             # [design] nodes between the scatter and its gather (a Linear or
                             # an activation on the messages)
SCATTERS = {"IndexAddBackward0", "ScatterAddBackward0", "ScatterReduceBackward0"}


class ScatteredMessages(FirstStepsReader):
    """A reader of ``graph_walks.ForwardGraph``."""
    steps = STEPS_MEASURED

    def keep(self, step, nodes):
        for measured in measure_scatters(nodes):
            self.observed.scattered_messages.append((step, *measured))


def measure_scatters(nodes):
    """[(rows, messages, highest sender + 1, highest receiver + 1)] of the scatters along
    dimension 0 fed by a gather along dimension 0 in ``nodes`` (module doc)."""
    found = []
    for node in nodes:
        if type(node).__name__ not in SCATTERS or len(found) >= KEPT_PER_STEP:
            continue
        receivers = _receivers(node)
        if receivers is None:
            continue
        gather = _gather_below(node)
        if gather is None:
            continue
        rows, senders = gather
        if rows < MIN_ROWS or senders.numel() != receivers.numel() or not senders.numel():
            continue
        found.append((int(rows), int(senders.numel()), int(senders.max()) + 1,
                      int(receivers.max()) + 1))
    return found


def _receivers(node):
    """The 1-D receiver rows of a scatter along dimension 0, or None."""
    if int(getattr(node, "_saved_dim", -1)) != 0:
        return None
    index = getattr(node, "_saved_index", None)
    if index is None or index.dtype.is_floating_point:
        return None
    if index.dim() == 2:                  # scatter's index, expanded over the features
        index = index[:, 0]
    return index if index.dim() == 1 else None


def _gather_below(node):
    """(rows of the gathered tensor, 1-D sender rows) of the first gather along dimension 0
    found within SEARCH_DEPTH nodes under ``node``, or None."""
    frontier = [child for child, _ in node.next_functions if child is not None]
    for _ in range(SEARCH_DEPTH):
        below = []
        for child in frontier:
            name = type(child).__name__
            if name == "IndexBackward0":
                indices = [i for i in (getattr(child, "_saved_indices", None) or ())]
                sizes = getattr(child, "_saved_self_sym_sizes", None)
                if len(indices) == 1 and indices[0] is not None and sizes and \
                        indices[0].dim() == 1 and not indices[0].dtype.is_floating_point and \
                        indices[0].dtype != _bool():
                    return int(sizes[0]), indices[0]
            elif name == "IndexSelectBackward0":
                sizes = getattr(child, "_saved_self_sym_sizes", None)
                if int(getattr(child, "_saved_dim", -1)) == 0 and sizes:
                    return int(sizes[0]), child._saved_index
            below += [grand for grand, _ in child.next_functions if grand is not None]
        frontier = below
    return None


def _bool():
    import torch
    return torch.bool
