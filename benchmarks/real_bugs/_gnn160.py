"""Shared pieces of real-bug batch 160 (graph neural networks for node and link prediction).

``community_graph(seed)`` draws a homophilous graph from a NumPy generator seeded by the
caller (so the benchmark's ``--shift-seeds`` moves it): NODES nodes in CLASSES communities,
each node's features a noisy view of its community's centre (too noisy for the features
alone: a node's neighbours carry most of the evidence), edges mostly inside a community
with degrees that vary (a few hubs), and a transductive split of the nodes into training,
validation and test masks (boolean). Everything dense: small enough for one CPU thread.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

NODES = 600
CLASSES = 6
FEATURES = 24
NOISE = 3.5            # std of the per-feature noise around a community centre (of std 1)
MEAN_DEGREE = 6
INSIDE = 0.7           # share of edges that stay inside a community
TRAIN, VAL = 0.2, 0.2  # shares of the nodes labelled for training / validation


def community_graph(seed=0, noise=NOISE):
    """x (NODES, FEATURES) float, y (NODES,) int64, adjacency (NODES, NODES) symmetric 0/1
    without self-loops, and train / val / test boolean masks."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, CLASSES, NODES)
    centres = rng.normal(size=(CLASSES, FEATURES))
    x = centres[y] + noise * rng.normal(size=(NODES, FEATURES))
    members = [np.flatnonzero(y == c) for c in range(CLASSES)]
    activity = rng.pareto(2.5, NODES) + 1.0           # heavy-tailed: some hubs
    activity = activity / activity.sum()
    a = np.zeros((NODES, NODES), dtype=np.float32)
    for _ in range(NODES * MEAN_DEGREE // 2):
        u = int(rng.choice(NODES, p=activity))
        pool = members[y[u]] if rng.random() < INSIDE else np.arange(NODES)
        v = int(rng.choice(pool))
        if u != v:
            a[u, v] = a[v, u] = 1.0
    order = rng.permutation(NODES)
    n_train, n_val = int(TRAIN * NODES), int(VAL * NODES)
    masks = []
    for part in (order[:n_train], order[n_train:n_train + n_val], order[n_train + n_val:]):
        m = np.zeros(NODES, dtype=bool)
        m[part] = True
        masks.append(torch.from_numpy(m))
    return (torch.from_numpy(x).float(), torch.from_numpy(y).long(), torch.from_numpy(a),
            *masks)


def gcn_norm(adjacency):
    """Kipf & Welling's renormalisation: D~^-1/2 (A + I) D~^-1/2, D~ the degrees of A + I."""
    a = adjacency + torch.eye(len(adjacency))
    d = a.sum(1).rsqrt()
    return d[:, None] * a * d[None, :]


class GCN(nn.Module):
    """Two graph convolutions, ``P relu(P X W1) W2`` for a given propagation matrix P."""

    def __init__(self, hidden=32):
        super().__init__()
        self.layer1 = nn.Linear(FEATURES, hidden)
        self.layer2 = nn.Linear(hidden, CLASSES)

    def forward(self, x, propagate):
        h = F.relu(propagate @ self.layer1(x))
        return propagate @ self.layer2(h)


@torch.no_grad()
def accuracy(logits, y, mask):
    return round(float((logits[mask].argmax(1) == y[mask]).float().mean()), 3)
