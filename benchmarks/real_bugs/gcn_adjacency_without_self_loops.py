"""A graph convolution that aggregates only the neighbours: the adjacency gets no self-loops
(no ``A + I``), so a node's new features are its neighbours' alone. The node's own
features, the best evidence about it, never reach its label; a node without edges gets
nothing at all (only the bias).

Reported: 'Add "self-loop" option for GraphConv Module' - https://github.com/dmlc/dgl/issues/1566
("Adding 'self-loop' edges is a common trick for GCN implementation. Without which, we
might have trouble stacking multiple layers of GCN, since the isolated nodes' feature will
be washed out. It's verified causing model performance issue (accuracy)"; a maintainer, of
the GCN tutorial that added none: "This should be addressed in #1587"). Here a two-layer GCN classifies the digits as nodes of a
graph whose edges join mostly different digits (a low-homophily graph, some nodes isolated),
half the nodes labelled for training. Fix: ``A + I`` before the symmetric normalisation
(Kipf & Welling's renormalisation).

Harm (150 steps, measured when the case was written): accuracy on the unlabelled nodes 0.65
against 0.78 for the fixed twin.

How watch finds it: right after the first recorded forwards a hook walks the model's graph
while the products' operands are still saved; the (900, 900) matrix the hidden features are
multiplied by has 15% of its rows all zero, a zero diagonal and a symmetric pattern:
NODES_GATHER_NOTHING, whose fix says A + I. (Only the second layer's product is in the
graph: the first multiplies the inputs, which need no gradient.) EXPECTED first named
SELF_LOOPS_MISSING, written before the rule; the rule's code covers this and the one-way
adjacency, and its finding tells them apart.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = 'Add "self-loop" option for GraphConv Module'
LINK = "https://github.com/dmlc/dgl/issues/1566"
EXPECTED = ("NODES_GATHER_NOTHING",)
STEPS = 150
NODES = 900
EDGES_PER_NODE = 3           # edges each connected node starts
SAME_CLASS = 0.2             # share of those edges that join two nodes of the same digit
ISOLATED = 0.15              # share of nodes without any edge


def digit_graph(generator):
    """Node features, labels and a symmetric 0/1 adjacency over NODES digits."""
    x, y = classification()
    x, y = x[:NODES], y[:NODES]
    adjacency = torch.zeros(NODES, NODES)
    connected = torch.rand(NODES, generator=generator) >= ISOLATED
    members = [torch.nonzero((y == c) & connected).squeeze(1) for c in range(10)]
    anyone = torch.nonzero(connected).squeeze(1)
    for node in anyone.tolist():
        for _ in range(EDGES_PER_NODE):
            pool = members[y[node]] if torch.rand(1, generator=generator) < SAME_CLASS \
                else anyone
            other = pool[torch.randint(0, len(pool), (1,), generator=generator)].item()
            if other != node:
                adjacency[node, other] = adjacency[other, node] = 1.0
    return x, y, adjacency


def normalised(adjacency):
    """D^-1/2 A D^-1/2 (a node without edges keeps a zero row)."""
    degree = adjacency.sum(1)
    scale = torch.where(degree > 0, degree.clamp(min=1).rsqrt(), torch.zeros_like(degree))
    return scale[:, None] * adjacency * scale[None, :]


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1, self.layer2 = nn.Linear(64, 64), nn.Linear(64, 10)

    def forward(self, x, propagate):
        hidden = F.relu(self.layer1(propagate @ x))
        return self.layer2(propagate @ hidden)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    x, y, adjacency = digit_graph(generator)
    if fixed:
        adjacency = adjacency + torch.eye(NODES)       # the fix: every node its own neighbour
    propagate = normalised(adjacency)                  # BUG when not fixed: no self-loops
    train = torch.rand(NODES, generator=generator) < 0.5
    model = GCN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=5e-4)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x, propagate)[train], y[train])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
