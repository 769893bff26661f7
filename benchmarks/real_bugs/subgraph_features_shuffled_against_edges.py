"""Mini-batches of nodes cut from one big graph, where the batch's features follow the
shuffled order of the sampled node ids but its edges were relabelled in SORTED order:
``x_i = x[idx_i]`` with ``idx_i`` a random permutation's slice, while
``subgraph(idx_i, edge_index, relabel_nodes=True)`` numbers the kept nodes by their
position in the sorted id list. Edge (a, b) of the batch then joins whichever rows of
``x_i`` sit at positions a and b - random nodes of the batch, not the neighbours. Every
node's "neighbourhood" is noise; its labels stay aligned with its own features, so the
model still learns from those, and nothing fails.

Reported: "BUG: x_i doesn't match edge_index_i in main-batch.py" -
https://github.com/qitianwu/NodeFormer/issues/7 ("idx_i is shuffled, then ... x_i is also
randomly permuted which means the original order of node has been changed. However ...
subgraph() also remain the order. In this way ... x_i doesn't align with adjs_i"; fixed by
mapping the relabelled edges through ``argsort(idx_i)``; closed). Here a two-layer GCN
labels the nodes of a homophilous graph of noisy digit images, trained on random batches
of 256 of the labelled nodes. Fix: keep the batch's nodes in sorted order (``idx_i =
idx_i.sort().values``) or map the relabelled edges through ``argsort(idx_i)``.

Harm (150 steps, accuracy on the 600-odd held-out nodes, predicted as one batch cut the
same way): 0.18 against 0.66 for the fixed twin.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "BUG: x_i doesn't match edge_index_i in main-batch.py"
LINK = "https://github.com/qitianwu/NodeFormer/issues/7"
EXPECTED = ("NODE_FEATURES_MISALIGNED_WITH_EDGES",)
STEPS = 150
NODES = 1500
BATCH = 512
NOISE = 1.5                  # std of the noise on each node's own image
EDGES_PER_NODE = 6           # same-digit edges each node starts
SAME_CLASS = 0.9             # share of a node's edges that join nodes of the same digit


def homophilous_graph(generator):
    """Noisy node images, labels and an undirected edge_index (2, E)."""
    x, y = classification()
    x, y = x[:NODES], y[:NODES]
    x = x + NOISE * torch.randn(NODES, 64, generator=generator)
    members = [torch.nonzero(y == c).squeeze(1) for c in range(10)]
    sources, targets = [], []
    for node in range(NODES):
        for _ in range(EDGES_PER_NODE):
            pool = members[y[node]] if torch.rand(1, generator=generator) < SAME_CLASS \
                else torch.arange(NODES)
            other = pool[torch.randint(0, len(pool), (1,), generator=generator)].item()
            if other != node:
                sources += [node, other]
                targets += [other, node]
    return x, y, torch.tensor([sources, targets])


def subgraph(index, edge_index, nodes):
    """PyG's ``subgraph(index, edge_index, relabel_nodes=True)``: the edges among ``index``,
    renumbered by each kept node's position in SORTED id order."""
    keep = torch.zeros(nodes, dtype=torch.bool)
    keep[index] = True
    new_id = torch.cumsum(keep.long(), 0) - 1
    both = keep[edge_index[0]] & keep[edge_index[1]]
    return new_id[edge_index[:, both]]


def propagation(edge_index, nodes):
    """D^-1/2 (A + I) D^-1/2 as a dense matrix."""
    adjacency = torch.eye(nodes)
    adjacency[edge_index[1], edge_index[0]] = 1.0
    scale = adjacency.sum(1).rsqrt()
    return scale[:, None] * adjacency * scale[None, :]


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1, self.layer2 = nn.Linear(64, 64), nn.Linear(64, 10)

    def forward(self, x, propagate):
        return self.layer2(propagate @ F.relu(self.layer1(propagate @ x)))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    x, y, edge_index = homophilous_graph(generator)
    labelled = torch.nonzero(torch.rand(NODES, generator=generator) < 0.6).squeeze(1)
    model = GCN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=5e-4)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            order = torch.randperm(len(labelled), generator=generator)[:BATCH]
            index = labelled[order]              # BUG when not fixed: shuffled ids, while
            if fixed:                            # subgraph() numbers them in sorted order
                index = index.sort().values      # the fix: the batch in sorted id order
            batch_edges = subgraph(index, edge_index, NODES)
            optimizer.zero_grad()
            logits = model(x[index], propagation(batch_edges, len(index)))
            loss = F.cross_entropy(logits, y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    held_out = torch.ones(NODES, dtype=torch.bool)
    held_out[labelled] = False
    index = torch.nonzero(held_out).squeeze(1)         # predicted as one batch the same way
    index = index[torch.randperm(len(index), generator=generator)]
    if fixed:
        index = index.sort().values
    model.eval()
    with torch.no_grad():
        predicted = model(x[index], propagation(subgraph(index, edge_index, NODES),
                                                len(index))).argmax(1)
    mon.accuracy = (predicted == y[index]).float().mean().item()
    return mon
