"""Mini-batch GraphSAGE training through a neighbour sampler whose seed nodes are given as
an INTEGER 0/1 mask. The sampler, like PyG's NeighborLoader, takes ``input_nodes`` either
as a boolean mask or as node indices; an int64 tensor of 0s and 1s is read as indices, so
every seed is node 0 or node 1. Each mini-batch is those two nodes' sampled neighbourhoods
and the loss is taken on them alone: it falls to zero within a few steps while the
classifier has seen two labels. Nothing errors - the batches have the expected size.

Reported: "Input_nodes Type have to be torch.BoolTensor" -
https://github.com/pyg-team/pytorch_geometric/issues/7855 (the user built the training mask
with ``dtype=torch.long`` instead of ``torch.bool`` and passed it as NeighborLoader's
``input_nodes``: "I got two different results for torch.LongTensor and torch.BoolTensor.
The result with torch.BoolTensor seems to be correct and with the datatype
torch.LongTensor I get very strange results"; the fix is a boolean mask, or the indices
of the training nodes). Here a two-layer mean-aggregation GraphSAGE labels the nodes of a
homophilous community graph (benchmarks/real_bugs/_gnn160.py: 600 nodes, 6 communities,
20% labelled for training) from batches of 32 seeds with 2-hop neighbourhoods sampled
(fan-out 8 and 4); the loss is taken on the seeds (the first rows of the batch), the test
accuracy on the full graph. Fix: ``input_nodes=train_mask`` as a bool tensor.

Measured (300 steps; accuracy on the 60% test nodes): seed 0, 0.31 for the bug against 0.70
for the fixed twin; seeds shifted by 1000, 0.22 against 0.70.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._gnn160 import CLASSES, FEATURES, accuracy, community_graph

TITLE = "Input_nodes Type have to be torch.BoolTensor"
LINK = "https://github.com/pyg-team/pytorch_geometric/issues/7855"
EXPECTED = ("MASK_USED_AS_INDEX",)
STEPS = 300
BATCH = 32
FANOUT = (8, 4)


class NeighborSampler:
    """Seeds in shuffled batches; each batch grows by up to FANOUT[k] random neighbours per
    node per hop. Yields (node ids with the seeds first, number of seeds)."""

    def __init__(self, adjacency, input_nodes):
        if input_nodes.dtype == torch.bool:             # a mask: the nodes it marks
            input_nodes = input_nodes.nonzero().view(-1)
        self.seeds = input_nodes                          # anything else: node indices
        self.neighbours = [row.nonzero().view(-1) for row in adjacency]

    def batches(self, steps):
        made = 0
        while True:
            order = self.seeds[torch.randperm(len(self.seeds))]
            for start in range(0, len(order), BATCH):
                if made == steps:
                    return
                seeds = order[start:start + BATCH]
                nodes, frontier = seeds.tolist(), seeds.tolist()
                seen = set(nodes)
                for fanout in FANOUT:
                    grown = []
                    for node in frontier:
                        near = self.neighbours[node]
                        pick = near[torch.randperm(len(near))[:fanout]].tolist()
                        grown += [n for n in pick if n not in seen]
                        seen.update(pick)
                    nodes += grown
                    frontier = grown
                made += 1
                yield torch.tensor(nodes), len(seeds)


def mean_adjacency(adjacency):
    return adjacency / adjacency.sum(1, keepdim=True).clamp(min=1)


class SAGE(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.self1, self.neigh1 = nn.Linear(FEATURES, hidden), nn.Linear(FEATURES, hidden)
        self.self2, self.neigh2 = nn.Linear(hidden, CLASSES), nn.Linear(hidden, CLASSES)

    def forward(self, x, mean_adj):
        h = F.relu(self.self1(x) + self.neigh1(mean_adj @ x))
        return self.self2(h) + self.neigh2(mean_adj @ h)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, adjacency, train, val, test = community_graph(seed=0)
    if fixed:
        input_nodes = train                   # the fix: a boolean mask of the training nodes
    else:
        input_nodes = train.long()            # BUG: 0/1 integers, read as node ids 0 and 1
    sampler = NeighborSampler(adjacency, input_nodes)
    model = SAGE()
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3, weight_decay=5e-4)
    with nd.watch(model, optimizer, **watch) as mon:
        for nodes, n_seeds in sampler.batches(steps):
            sub = mean_adjacency(adjacency[nodes][:, nodes])
            logits = model(x[nodes], sub)[:n_seeds]           # the seeds come first
            loss = F.cross_entropy(logits, y[nodes[:n_seeds]])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        logits = model(x, mean_adjacency(adjacency))
    mon.held_out_accuracy = accuracy(logits, y, test)
    mon.validation_accuracy = accuracy(logits, y, val)
    return mon
