"""Several small graphs batched into one big graph with their node features stacked but
their edge lists concatenated as they were: each graph's senders and receivers still count
from 0, with no offset of the nodes stacked before it. Every edge of every graph then joins
nodes of the FIRST graph in the batch; the nodes of the other graphs receive no message at
all and are classified from their own features only, while the first graph's nodes average
the whole batch's edges. Nothing fails: the indices are all in range.

Reported: "GraphTuple from batched tensors does not offset Senders/Receivers" -
https://github.com/google-deepmind/graph_nets/issues/135 (a batch of graphs built from
batched node, edge, sender and receiver tensors "interprets senders and receivers as if they
only affect the first graph in the batch"; the maintainer: "when you build GraphsTuples on
your own, you are in charge of adding the offsets yourself", add the accumulated number of
nodes per graph to the senders and receivers). Here a two-layer mean-aggregation network
labels the nodes of small graphs of digits (each node's own image heavily noised, its
neighbours of the same digit), 16 graphs a batch. Fix: add each graph's node offset (the
number of nodes stacked before it) to its senders and receivers.

Harm (150 steps, accuracy on 64 held-out graphs batched the same way): 0.44 against 0.78
for the fixed twin.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "GraphTuple from batched tensors does not offset Senders/Receivers"
LINK = "https://github.com/google-deepmind/graph_nets/issues/135"
EXPECTED = ("BATCHED_EDGES_NOT_OFFSET",)
STEPS = 150
GRAPHS = 320                 # graphs in the pool (the last 64 held out)
NODES = 8                    # nodes per graph: two digits, four nodes each
GRAPHS_PER_BATCH = 16
NOISE = 0.9                  # std of the noise on each node's own image
NEIGHBOURS = 3               # same-digit neighbours each node is joined to


def small_graphs(generator):
    """[(x (NODES, 64), y (NODES,), senders, receivers)] with local node ids 0..NODES-1."""
    x, y = classification()
    members = [torch.nonzero(y == c).squeeze(1) for c in range(10)]
    graphs = []
    for _ in range(GRAPHS):
        pair = torch.randperm(10, generator=generator)[:2]
        picks = torch.cat([members[c][torch.randint(0, len(members[c]), (NODES // 2,),
                                                     generator=generator)] for c in pair])
        features = x[picks] + NOISE * torch.randn(NODES, 64, generator=generator)
        senders, receivers = [], []
        for node in range(NODES):
            group = range(0, NODES // 2) if node < NODES // 2 else range(NODES // 2, NODES)
            for other in [o for o in group if o != node][:NEIGHBOURS]:
                senders.append(other)
                receivers.append(node)
        graphs.append((features, y[picks], torch.tensor(senders), torch.tensor(receivers)))
    return graphs


def batch(graphs, fixed):
    """One big graph: features and labels stacked, edge lists concatenated."""
    xs, ys, senders, receivers, offset = [], [], [], [], 0
    for features, labels, s, r in graphs:
        xs.append(features)
        ys.append(labels)
        shift = offset if fixed else 0     # BUG when not fixed: no offset, every graph's
        senders.append(s + shift)          # edges point into the first graph's nodes
        receivers.append(r + shift)
        offset += len(features)
    return torch.cat(xs), torch.cat(ys), torch.cat(senders), torch.cat(receivers)


def mean_of_neighbours(h, senders, receivers):
    total = torch.zeros_like(h).index_add_(0, receivers, h[senders])
    count = torch.zeros(len(h)).index_add_(0, receivers, torch.ones(len(receivers)))
    return total / count.clamp(min=1)[:, None]


class GraphSage(nn.Module):
    def __init__(self):
        super().__init__()
        self.self1, self.neighbours1 = nn.Linear(64, 64), nn.Linear(64, 64, bias=False)
        self.self2, self.neighbours2 = nn.Linear(64, 10), nn.Linear(64, 10, bias=False)

    def forward(self, x, senders, receivers):
        h = F.relu(self.self1(x) + self.neighbours1(mean_of_neighbours(x, senders, receivers)))
        return self.self2(h) + self.neighbours2(mean_of_neighbours(h, senders, receivers))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    graphs = small_graphs(generator)
    train, held_out = graphs[:-64], graphs[-64:]
    model = GraphSage()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            picks = torch.randint(0, len(train), (GRAPHS_PER_BATCH,), generator=generator)
            x, y, senders, receivers = batch([train[i] for i in picks.tolist()], fixed)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x, senders, receivers), y)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        correct = 0
        for start in range(0, len(held_out), GRAPHS_PER_BATCH):
            x, y, senders, receivers = batch(held_out[start:start + GRAPHS_PER_BATCH], fixed)
            correct += (model(x, senders, receivers).argmax(1) == y).sum().item()
    mon.accuracy = correct / (len(held_out) * NODES)
    return mon
