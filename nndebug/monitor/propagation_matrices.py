"""Square matrices the model multiplies its node features by: a graph's adjacency
(``run.observed.propagation_matrices``; AGGREGATE_GROWS_WITH_DEGREE,
``nndebug.rules.graph_propagation``).

A graph network written in plain torch passes messages with one product, ``A @ h``: row i
of the (N, N) matrix ``A`` says which nodes node i gathers from, and with what weight. How
``A`` was built decides the scale of what comes out. Left as 0/1 entries the product is a
SUM over the neighbours, and a hub with 300 neighbours gets features 300 times those of a
node with one; a second layer multiplies again. GCN divides by the degrees (``D^-1/2 (A +
I) D^-1/2``), GraphSAGE and LightGCN likewise; GIN keeps the sum on purpose and puts a
normalisation layer after it.

On the first ``STEPS_MEASURED`` recorded steps a forward hook on the model walks the graph
under its outputs, right after the forward, while the product's operands are still saved in
it: each matrix product (``MmBackward0``) whose left operand is a square matrix of at least
``MIN_NODES`` rows (at most ``MAX_NODES``) that carries no gradient (data, not a weight) is
measured once per step - whether its entries are all 0 or 1, its row sums (the in-degrees:
median and largest), whether it is triangular (a causal or cumulative-sum mask is, an
adjacency is not), the share of its rows that are all zero (nodes that gather nothing:
their output forgets their own features too), whether its diagonal is all zero (no
self-loops) and whether its pattern of non-zeros is symmetric (an undirected graph's is).
Kept as ``(step, nodes, 0/1 entries, median row sum, largest row sum, triangular, empty-row
share, no self-loops, symmetric)``.

The walk is this file's own small one (``graph_nodes``) over the list of nodes it returns;
the measurement (``measure_propagations``) takes that list, so a shared walk of the
forward's graph can hand it its nodes instead. Cost: one walk of the forward's graph and a
few reductions over each square operand, on the first few recorded steps only.
"""
from .loss_reductions import output_tensors

STEPS_MEASURED = 3           # [design] recorded steps walked: the graph is the same on every
                             # step of an ordinary loop; three show it is not one odd batch
WALK_LIMIT = 50_000          # [design] graph nodes walked at most per forward (a 100-layer
                             # transformer's forward is a few thousand)
MIN_NODES = 32               # [design] a graph of fewer nodes is no place for hubs; attention
                             # or mixing matrices of a few positions are left alone
KEPT_PER_STEP = 4            # [design] products measured per forward (two or three layers)
MAX_NODES = 8192             # [design] larger matrices are not measured: the measurement makes
                             # a few temporaries of the matrix's size (a quarter of a GB
                             # each at 16k nodes); graphs that large are kept sparse anyway


class PropagationMatrices:
    def __init__(self, adapter, observed, on_error):
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.enabled = adapter.framework == "torch"
        self._handle, self._step, self._walked = None, None, False
        self._steps_measured = 0

    def arm(self, step):
        if not self.enabled or self._steps_measured >= STEPS_MEASURED:
            return
        self._step, self._walked = step, False
        try:
            self._handle = self.adapter.add_forward_hook(self.adapter.model, self._on_output)
        except Exception as error:      # a model without forward hooks: nothing is read
            self.enabled = False
            self.on_error(error)

    def disarm(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

    def _on_output(self, module, inputs, output):
        if self._walked or self._step is None:
            return
        self._walked = True                    # the first forward of the step is read
        self._steps_measured += 1
        try:
            roots = [t.grad_fn for t in output_tensors(output) if getattr(t, "grad_fn", None)]
            for measured in measure_propagations(graph_nodes(roots)):
                self.observed.propagation_matrices.append((int(self._step), *measured))
        except Exception as error:             # never break the user's forward
            self.enabled = False
            self.on_error(error)


def graph_nodes(roots):
    """Every node under ``roots`` (at most ``WALK_LIMIT``), each once."""
    seen, stack, nodes = set(roots), list(roots), []
    while stack and len(nodes) < WALK_LIMIT:
        node = stack.pop()
        nodes.append(node)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return nodes


def measure_propagations(nodes):
    """[(nodes, 0/1 entries, median row sum, largest row sum, triangular, share of empty
    rows, diagonal all zero, symmetric pattern)] of the square data matrices that multiply
    features from the left in ``nodes`` (module doc)."""
    found, measured = [], set()
    for node in nodes:
        if type(node).__name__ != "MmBackward0" or len(found) >= KEPT_PER_STEP:
            continue
        matrix = getattr(node, "_saved_self", None)
        if matrix is None or matrix.dim() != 2 or matrix.requires_grad or \
                matrix.is_sparse or matrix.shape[0] != matrix.shape[1] or \
                not MIN_NODES <= matrix.shape[0] <= MAX_NODES or id(matrix) in measured:
            continue
        measured.add(id(matrix))
        found.append(_measure(matrix.detach()))
    return found


def _measure(matrix):
    values = matrix.float()
    binary = bool(((values == 0) | (values == 1)).all())
    degrees = values.sum(dim=1)
    triangular = bool((values.triu(1) == 0).all() or (values.tril(-1) == 0).all())
    empty_rows = float((values != 0).any(dim=1).logical_not().float().mean())
    no_self_loops = bool((values.diagonal() == 0).all())
    symmetric = bool(((values != 0) == (values.T != 0)).all())
    return (int(values.shape[0]), binary, float(degrees.median()), float(degrees.max()),
            triangular, empty_rows, no_self_loops, symmetric)
