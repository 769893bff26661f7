"""Message passing on a DIRECTED graph with the adjacency multiplied the wrong way round:
the sparse matrix is built with ``row=source, col=target`` (A[i, j] = 1 for an edge i -> j)
and the features propagated as ``A @ x``, so each node gathers from the nodes it points TO
(its out-neighbours) instead of the nodes pointing to it. On an undirected graph A is
symmetric and nothing changes; on a directed one every message travels against its edge.
Nothing fails, shapes agree, the loss falls a little.

Reported: "SparseTensor Message Passing produce incorrect results with directed graphs" -
https://github.com/pyg-team/pytorch_geometric/issues/7960 (message passing with a
``SparseTensor(row=edge_index[0], col=edge_index[1])`` gives the result of
``flow='target_to_source'``; the maintainer: "You need to input the transpose
SparseMatrix"; PyG's own ``ToSparseTensor`` stores ``adj_t``: ``A^T @ X`` passes features
along their edges, ``A @ X`` uses the reverse edges). Here a mean-aggregation network labels
the nodes of a directed graph of digits where a node's label is the digit shown by the nodes
linking to it (its own image shows some other digit), half the nodes labelled. Fix:
propagate with the transpose, ``A.t() @ x`` (``adj_t``).

Harm (150 steps, accuracy on the unlabelled nodes): 0.11 against 1.00 for the fixed twin.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "SparseTensor Message Passing produce incorrect results with directed graphs"
LINK = "https://github.com/pyg-team/pytorch_geometric/issues/7960"
EXPECTED = ("MESSAGES_AGAINST_EDGES",)
STEPS = 150
NODES = 900
IN_EDGES = 3                 # edges into each node, from nodes showing its label's digit


def directed_digit_graph(generator):
    """Node images, labels and a directed 0/1 adjacency, A[i, j] = 1 for an edge i -> j."""
    x, shown = classification()
    x, shown = x[:NODES], shown[:NODES]
    labels = torch.randint(0, 10, (NODES,), generator=generator)
    showing = [torch.nonzero(shown == c).squeeze(1) for c in range(10)]
    adjacency = torch.zeros(NODES, NODES)
    for node, label in enumerate(labels.tolist()):
        pool = showing[label]
        sources = pool[torch.randint(0, len(pool), (IN_EDGES,), generator=generator)]
        adjacency[sources, node] = 1.0
    adjacency.fill_diagonal_(0)
    return x, labels, adjacency


def mean_rows(matrix):
    return matrix / matrix.sum(1, keepdim=True).clamp(min=1)


class DirectedSage(nn.Module):
    def __init__(self):
        super().__init__()
        self.self1, self.neighbours1 = nn.Linear(64, 64), nn.Linear(64, 64, bias=False)
        self.self2, self.neighbours2 = nn.Linear(64, 10), nn.Linear(64, 10, bias=False)

    def forward(self, x, gather):
        h = F.relu(self.self1(x) + self.neighbours1(gather @ x))
        return self.self2(h) + self.neighbours2(gather @ h)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    x, y, adjacency = directed_digit_graph(generator)
    if fixed:
        gather = mean_rows(adjacency.t())     # the fix: row i holds the edges INTO node i
    else:
        gather = mean_rows(adjacency)         # BUG: row i holds the edges OUT of node i
    train = torch.rand(NODES, generator=generator) < 0.5
    model = DirectedSage()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x, gather)[train], y[train])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        predicted = model(x, gather).argmax(1)
    mon.accuracy = (predicted[~train] == y[~train]).float().mean().item()
    return mon
