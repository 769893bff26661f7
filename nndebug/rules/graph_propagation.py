"""How a graph network's adjacency was built, read where the model multiplies node features
by it (``run.observed.propagation_matrices``, ``monitor/propagation_matrices.py``).

- AGGREGATE_GROWS_WITH_DEGREE: the matrix is the raw 0/1 adjacency, so ``A @ h`` SUMS the
  neighbours, and the graph has hubs: its largest row sum (degree) is many times its
  median. A hub's aggregate is that many times an ordinary node's, again after each layer;
  the hubs' logits and gradients swamp the rest. Named only when learning went poorly
  (``curve.learning_poor``): GIN sums on purpose, with a normalisation layer after the sum,
  and trains. Fix: divide by the degree (mean, ``D^-1 (A + I)``) or GCN's ``D^-1/2 (A + I)
  D^-1/2``.
- NODES_GATHER_NOTHING: a share of the matrix's rows are all zero, so those nodes' outputs
  hold nothing of anyone's features, their own included: only the layer's bias is left of
  them. Without self-loops (``A + I``) every isolated node is such a row; an adjacency built
  one way only (a user-item graph with ``R`` and no ``R^T`` block) leaves every node on the
  other side without a row. Named whatever the curve says: the loss can look healthy while
  those nodes are classified from a constant.
"""
from ..findings import Finding
from .context import fmt, observed_list
from .curve import learning_poor
from .graph import rule

HUB_RATIO = 20.0          # [measured] largest / median degree of a 0/1 adjacency before its
                          # sum is said to grow with the degree: 76 (303 / 4) on the hub case;
                          # a grid or a k-NN graph is near 1, a molecule's 2-4 at most
MIN_HUB_DEGREE = 32       # [design] and the hub gathers at least this many neighbours (a hub
                          # of 8 next to nodes of 1 scales by 8: slow, not swamped)
EMPTY_ROW_SHARE = 0.05    # [measured] share of nodes gathering nothing: 0.15 (isolated, no
                          # self-loops) and 0.29 (items of a one-way user-item graph) on the
                          # cases; 0 with A + I, and on a user-item graph built both ways
                          # unless users or items without any interaction are kept


def _latest(ctx):
    """The matrices measured on the last recorded step that measured any (a few at most)."""
    rows = observed_list(ctx, "propagation_matrices")
    if not rows:
        return []
    last = max(row[0] for row in rows)
    return [row for row in rows if row[0] == last]


@rule(produces="AGGREGATE_GROWS_WITH_DEGREE",
      explains={"EXPLODING_GRADIENTS", "EXPLODING_ACTIVATIONS", "LOSS_AT_CHANCE",
                "LOSS_PLATEAU", "LOSS_DIVERGING"})
def aggregate_grows_with_degree(ctx):
    hubs = [row for row in _latest(ctx)
            if row[2] and not row[5] and row[4] >= MIN_HUB_DEGREE and
            row[4] >= HUB_RATIO * max(row[3], 1.0)]
    if not hubs or not learning_poor(ctx):
        return None
    step, nodes, _, median, largest = hubs[0][:5]
    return Finding(
        code="AGGREGATE_GROWS_WITH_DEGREE", severity="warning", where="model forward",
        step=step,
        message=f"The model multiplies its node features by a {nodes} x {nodes} matrix of 0s "
                f"and 1s, a raw adjacency: each node's aggregate is the SUM of its "
                f"neighbours', and here the median node has {fmt(median)} neighbours while "
                f"the largest hub has {fmt(largest)}. The hub's features come out "
                f"{fmt(largest / max(median, 1.0))} times larger, again after every layer, "
                "and its logits and gradients swamp the other nodes'; training went poorly.",
        evidence={"nodes": nodes, "median_degree": median, "largest_degree": largest},
        fix="Normalise the adjacency before multiplying: the mean over the neighbourhood, "
            "A_hat = D^-1 (A + I), or GCN's D^-1/2 (A + I) D^-1/2 with D the degrees of "
            "A + I. (GIN sums on purpose and puts a normalisation layer after the sum.)")


@rule(produces="NODES_GATHER_NOTHING", explains={"LOSS_AT_CHANCE", "LOSS_PLATEAU"})
def nodes_gather_nothing(ctx):
    empty = [row for row in _latest(ctx) if not row[5] and row[6] >= EMPTY_ROW_SHARE]
    if not empty:
        return None
    step, nodes, _, _, _, _, share, no_self_loops, symmetric = empty[0]
    if no_self_loops and symmetric:
        why = ("its diagonal is all zero, so no node is its own neighbour, and the nodes "
               "without edges gather nothing at all")
        fix = ("Add self-loops before normalising: A + I (torch.eye), so that every node "
               "keeps its own features (Kipf & Welling's renormalisation).")
    else:
        why = ("the matrix is not symmetric: edges were entered one way only, so the nodes "
               "on the other side of them (the items of a user-item graph built with R and "
               "no R^T) have no row")
        fix = ("Build the adjacency both ways: for users and items, [[0, R], [R^T, 0]]; for "
               "an edge list, add each edge reversed (and self-loops where the model wants "
               "a node's own features).")
    return Finding(
        code="NODES_GATHER_NOTHING", severity="warning", where="model forward", step=step,
        message=f"{fmt(share * 100)}% of the rows of the {nodes} x {nodes} matrix the model "
                "multiplies its node features by are all zero: those nodes' outputs hold "
                "nothing of any node's features, their own included, only the layer's "
                f"bias. Here {why}.",
        evidence={"nodes": nodes, "empty_row_share": share, "no_self_loops": no_self_loops,
                  "symmetric": symmetric},
        fix=fix)
