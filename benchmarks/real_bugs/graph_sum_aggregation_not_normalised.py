"""Message passing that sums the neighbours' features without dividing by the degree: a
node's aggregate grows with its number of neighbours, so on a graph with hubs (a few nodes
with hundreds of edges, most with a handful) the hubs' features are hundreds of times
larger than the rest, and larger again after the second layer. The hubs' huge logits
dominate the loss and its gradient; the ordinary nodes are fitted poorly.

Reported: "Migrating GNN node classification tutorial to Keras3" -
https://github.com/keras-team/keras-io/pull/2304 (the changes "to make the network
numerically stable": "Degree Normalization: Implemented manual segment-based mean pooling
(Sum / Degree) in the GraphConvLayer. This prevents feature explosion in high-degree nodes
and stabilizes the validation loss", with self-loops added as well). Here a two-layer graph
network classifies the digits as nodes of a graph with a heavy-tailed degree distribution
(edges attach preferentially to a few hub nodes). Fix: mean aggregation, D^-1 (A + I).

Harm (150 steps, measured when the case was written): accuracy on the unlabelled nodes 0.09
against 0.83 for the fixed twin.

How watch finds it: the matrix the model multiplies its features by is 0/1 (a raw
adjacency: a sum over neighbours), its median row sums to 4 and its largest to 303, and
training went poorly (gradients exploding, loss at chance): AGGREGATE_GROWS_WITH_DEGREE,
which explains those symptoms. The degree spread alone is not enough: GIN sums on purpose.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "Migrating GNN node classification tutorial to Keras3"
LINK = "https://github.com/keras-team/keras-io/pull/2304"
EXPECTED = ("AGGREGATE_GROWS_WITH_DEGREE",)
STEPS = 150
NODES = 900
EDGES = 2700
SAME_CLASS = 0.5             # share of edges joining two nodes of the same digit
HUB_EXPONENT = 1.2           # an endpoint is drawn with weight rank^-1.2: a few hubs


def hub_graph(generator):
    """Node features, labels and a symmetric 0/1 adjacency with heavy-tailed degrees."""
    x, y = classification()
    x, y = x[:NODES], y[:NODES]
    popularity = torch.arange(1, NODES + 1, dtype=torch.float32) ** -HUB_EXPONENT
    popularity = popularity[torch.randperm(NODES, generator=generator)]
    adjacency = torch.zeros(NODES, NODES)
    sources = torch.randint(0, NODES, (EDGES,), generator=generator)
    for source in sources.tolist():
        same = torch.rand(1, generator=generator) < SAME_CLASS
        weights = popularity * (y == y[source]) if same else popularity
        target = torch.multinomial(weights, 1, generator=generator).item()
        if target != source:
            adjacency[source, target] = adjacency[target, source] = 1.0
    return x, y, adjacency


class GraphNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1, self.layer2 = nn.Linear(64, 64), nn.Linear(64, 10)

    def forward(self, x, aggregate):
        hidden = F.relu(self.layer1(aggregate @ x))
        return self.layer2(aggregate @ hidden)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    x, y, adjacency = hub_graph(generator)
    aggregate = adjacency + torch.eye(NODES)
    if fixed:                                  # the fix: the mean over the neighbourhood
        aggregate = aggregate / aggregate.sum(1, keepdim=True)
    # BUG when not fixed: the plain sum, growing with the degree
    train = torch.rand(NODES, generator=generator) < 0.5
    model = GraphNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x, aggregate)[train], y[train])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
