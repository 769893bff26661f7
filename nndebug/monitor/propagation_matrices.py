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

On the first ``STEPS_MEASURED`` recorded steps the shared walk of the forward's graph
(``graph_walks.py``) hands its nodes over right after the forward, while the products'
operands are still saved in them: each matrix product (``MmBackward0``) whose left
operand is a square matrix of at least ``MIN_NODES`` rows (at most ``MAX_NODES``) that carries no gradient (data, not a weight) is
measured once per step - whether its entries are all 0 or 1, its row sums (the in-degrees:
median and largest), whether it is triangular (a causal or cumulative-sum mask is, an
adjacency is not), the share of its rows that are all zero (nodes that gather nothing:
their output forgets their own features too), whether its diagonal is all zero (no
self-loops) and whether its pattern of non-zeros is symmetric (an undirected graph's is).
Kept as ``(step, nodes, 0/1 entries, median row sum, largest row sum, triangular, empty-row
share, no self-loops, symmetric)``.

Cost: a few reductions over each square operand, on the first few recorded steps only.
"""
from .graph_walks import FirstStepsReader

STEPS_MEASURED = 3           # [design] recorded steps walked: the graph is the same on every
                             # step of an ordinary loop; three show it is not one odd batch
MIN_NODES = 32               # [design] a graph of fewer nodes is no place for hubs; attention
                             # or mixing matrices of a few positions are left alone
KEPT_PER_STEP = 4            # [design] products measured per forward (two or three layers)
MAX_NODES = 8192             # [design] larger matrices are not measured: the measurement makes
                             # a few temporaries of the matrix's size (a quarter of a GB
                             # each at 16k nodes); graphs that large are kept sparse anyway


class PropagationMatrices(FirstStepsReader):
    """A reader of ``graph_walks.ForwardGraph``."""
    steps = STEPS_MEASURED

    def keep(self, step, nodes):
        for measured in measure_propagations(nodes):
            self.observed.propagation_matrices.append((step, *measured))


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
