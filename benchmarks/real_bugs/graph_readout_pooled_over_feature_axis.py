"""A graph classifier on dense batched graphs, node states of shape (graphs, nodes,
features), whose readout pools over the wrong axis: ``h.mean(dim=-1)`` averages each
node's FEATURES, leaving (graphs, nodes) - one number per node, its mean activation - where
the readout should average the NODES (``dim=1``) and keep (graphs, features). The classifier
head, sized for what came out, reads the node slots as if they were features: what the
graph convolutions learned is squashed to one scalar per node, and the answer depends on
the order the nodes happen to be listed in.

Reported: "About the readout operation in graph classification" -
https://github.com/flyingdoog/PGExplainer/issues/6 ("the global pooling operation in graph
classification is on the wrong axis ... when reading out the 'out' (graph_num, node_size,
fea_num) with axis=-1, the resulting shape is (graph_num, node_size) but not the desired
(graph_num, fea_num)"; the author: "Thanks for report the bug. I have fixed it", the readout
moved to axis=1). Here a two-layer dense GCN classifies small graphs whose nodes are noisy
images of one digit (the graph's label), listed in random order. Fix: pool over the node
axis, ``h.mean(dim=1)``, and size the head by the features.

Harm (150 steps, accuracy on 128 held-out graphs): 0.22 against 0.93 for the fixed twin.

EXPECTED first named READOUT_OVER_FEATURE_AXIS, written before scoring; the benchmark already
had POOLED_OVER_FEATURES for this cause (frame_pooling_over_feature_axis,
speaker_features_pooled_over_frequency), so the rule and this case use that code.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "About the readout operation in graph classification"
LINK = "https://github.com/flyingdoog/PGExplainer/issues/6"
EXPECTED = ("POOLED_OVER_FEATURES",)
STEPS = 150
GRAPHS = 640                 # the last 128 held out
NODES = 12
HIDDEN = 32
NOISE = 1.0                  # std of the noise on each node's image
BATCH = 32


def digit_graphs(generator):
    """x (GRAPHS, NODES, 64), propagation (GRAPHS, NODES, NODES), y (GRAPHS,): each graph a
    random graph over NODES noisy images of the graph's digit."""
    x, y = classification()
    labels = torch.randint(0, 10, (GRAPHS,), generator=generator)
    members = [torch.nonzero(y == c).squeeze(1) for c in range(10)]
    picks = torch.stack([members[c][torch.randint(0, len(members[c]), (NODES,),
                                                  generator=generator)] for c in labels.tolist()])
    features = x[picks] + NOISE * torch.randn(GRAPHS, NODES, 64, generator=generator)
    edges = (torch.rand(GRAPHS, NODES, NODES, generator=generator) < 0.3).float()
    adjacency = ((edges + edges.transpose(1, 2)) > 0).float() + torch.eye(NODES)
    adjacency = adjacency.clamp(max=1)
    scale = adjacency.sum(2).rsqrt()
    return features, scale[:, :, None] * adjacency * scale[:, None, :], labels


class DenseGCN(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.layer1, self.layer2 = nn.Linear(64, HIDDEN), nn.Linear(HIDDEN, HIDDEN)
        self.head = nn.Linear(HIDDEN if fixed else NODES, 10)

    def forward(self, x, propagation):
        h = F.relu(self.layer1(propagation @ x))
        h = F.relu(self.layer2(propagation @ h))          # (graphs, nodes, features)
        pooled = h.mean(dim=1) if self.fixed else h.mean(dim=-1)   # BUG when not fixed:
        return self.head(pooled)                          # the features averaged away


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    x, propagation, y = digit_graphs(generator)
    train = GRAPHS - 128
    model = DenseGCN(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(0, train, (BATCH,), generator=generator)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[index], propagation[index]), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        predicted = model(x[train:], propagation[train:]).argmax(1)
    mon.accuracy = (predicted == y[train:]).float().mean().item()
    return mon
