"""Shared pieces of real-bug batch 253 (beginner graph neural networks from first tutorials).

The graph itself comes from ``benchmarks/real_bugs/_gnn160.py`` (``community_graph``: a
homophilous 600-node, 6-community graph whose node features are too noisy alone, with
boolean train / val / test masks). Here: the first-tutorial two-layer GCN with dropout
between its layers (Kipf's pygcn / the PyG "Node Classification" notebook), a training
loop that takes the propagation matrix as an argument, and an evaluation helper; for
graph-level batching, padded dense batches of small graphs (as PyG's ToDense +
DenseDataLoader give them) - feature-labelled graphs and featureless graphs whose class is
their shape - with dense graph-convolution classifiers.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._gnn160 import CLASSES, FEATURES, accuracy

HIDDEN = 32
DROPOUT = 0.5


class TutorialGCN(nn.Module):
    """``P dropout(relu(P X W1)) W2``, the tutorial's two graph convolutions."""

    def __init__(self, hidden=HIDDEN, dropout=DROPOUT):
        super().__init__()
        self.layer1 = nn.Linear(FEATURES, hidden)
        self.layer2 = nn.Linear(hidden, CLASSES)
        self.dropout = dropout

    def forward(self, x, propagate):
        h = F.relu(propagate @ self.layer1(x))
        h = F.dropout(h, self.dropout, training=self.training)
        return propagate @ self.layer2(h)


def train_full_batch(model, x, y, propagate, train, steps, watch, lr=1e-2):
    """Adam with the tutorial's weight decay, one full-graph step per epoch, the loss on the
    training nodes only. Returns the monitor."""
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=5e-4)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            model.train()
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x, propagate)[train], y[train])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


@torch.no_grad()
def evaluate(mon, model, x, y, propagate, val, test, eval_mode=True):
    if eval_mode:
        model.eval()
    logits = model(x, propagate)
    mon.held_out_accuracy = accuracy(logits, y, test)
    mon.validation_accuracy = accuracy(logits, y, val)
    return mon


# --- graph-level batching (dense, padded): DenseDataLoader-style batches -------------------

MAX_NODES = 40
GRAPH_FEATURES = 8
GRAPH_CLASSES = 4


def padded_graphs(n_graphs, seed=0):
    """A padded dense batch of small random graphs, as PyG's ToDense + DenseDataLoader give
    it: x (G, MAX_NODES, GRAPH_FEATURES) with zero rows past each graph's nodes, adj (G,
    MAX_NODES, MAX_NODES) 0/1 symmetric, mask (G, MAX_NODES) bool, y (G,). Each graph has 4
    to MAX_NODES nodes; its class sets the mean of its nodes' (noisy) features - the four
    class centres lie on one line at different distances, so a readout that shrinks with the
    graph's size confuses them."""
    import numpy as np
    rng = np.random.default_rng(seed)
    direction = rng.normal(size=GRAPH_FEATURES)
    direction /= np.linalg.norm(direction)
    centres = np.stack([direction * r for r in (0.5, 1.25, 2.0, 2.75)])
    x = np.zeros((n_graphs, MAX_NODES, GRAPH_FEATURES), np.float32)
    adj = np.zeros((n_graphs, MAX_NODES, MAX_NODES), np.float32)
    mask = np.zeros((n_graphs, MAX_NODES), bool)
    y = rng.integers(0, GRAPH_CLASSES, n_graphs)
    for g in range(n_graphs):
        n = int(rng.integers(4, MAX_NODES + 1))
        mask[g, :n] = True
        x[g, :n] = centres[y[g]] + 1.0 * rng.normal(size=(n, GRAPH_FEATURES))
        for u in range(1, n):                      # a random tree plus a few chords
            v = int(rng.integers(0, u))
            adj[g, u, v] = adj[g, v, u] = 1.0
        for _ in range(n // 3):
            u, v = rng.integers(0, n, 2)
            if u != v:
                adj[g, u, v] = adj[g, v, u] = 1.0
    return (torch.from_numpy(x), torch.from_numpy(adj), torch.from_numpy(mask),
            torch.from_numpy(y).long())


class DenseGraphClassifier(nn.Module):
    """Two dense mean-aggregation graph convolutions (D~^-1 (A + I) X W, as DenseSAGEConv /
    DenseGraphConv with mean), a mean readout over the nodes and a linear head. ``mask``
    None: the readout averages over all MAX_NODES slots, padding included."""

    def __init__(self, hidden=32):
        super().__init__()
        self.conv1 = nn.Linear(GRAPH_FEATURES, hidden)
        self.conv2 = nn.Linear(hidden, hidden)
        self.head = nn.Linear(hidden, GRAPH_CLASSES)

    def forward(self, x, adj, mask=None):
        a = adj + torch.eye(adj.shape[-1])
        a = a / a.sum(-1, keepdim=True)
        h = F.relu(self.conv1(a @ x))
        h = F.relu(self.conv2(a @ h))
        if mask is None:
            pooled = h.mean(1)
        else:
            m = mask.unsqueeze(-1).float()
            h = h * m
            pooled = h.sum(1) / m.sum(1)
        return self.head(pooled)


# --- featureless graphs whose class is their structure ---------------------------------------

MAX_DEGREE = 9          # one-hot degree features 0..MAX_DEGREE (larger degrees clipped)
SHAPES = 4


def structural_graphs(n_graphs, seed=0):
    """Padded dense graphs without node features, 10 to MAX_NODES nodes, whose class is their
    shape: 0 a random tree, 1 a ring with a few chords, 2 a tree of a few hubs (star-like),
    3 a sparse random graph of mean degree about 4. Returns adj (G, MAX_NODES, MAX_NODES),
    mask (G, MAX_NODES), y (G,)."""
    import numpy as np
    rng = np.random.default_rng(seed)
    adj = np.zeros((n_graphs, MAX_NODES, MAX_NODES), np.float32)
    mask = np.zeros((n_graphs, MAX_NODES), bool)
    y = rng.integers(0, SHAPES, n_graphs)
    for g in range(n_graphs):
        n = int(rng.integers(10, MAX_NODES + 1))
        mask[g, :n] = True
        a = adj[g]
        if y[g] == 0:
            for u in range(1, n):
                v = int(rng.integers(0, u))
                a[u, v] = a[v, u] = 1
        elif y[g] == 1:
            for u in range(n):
                a[u, (u + 1) % n] = a[(u + 1) % n, u] = 1
            for _ in range(n // 5):
                u, v = rng.integers(0, n, 2)
                if u != v:
                    a[u, v] = a[v, u] = 1
        elif y[g] == 2:
            hubs = max(2, n // 8)
            for u in range(1, hubs):
                a[u, 0] = a[0, u] = 1
            for u in range(hubs, n):
                v = int(rng.integers(0, hubs))
                a[u, v] = a[v, u] = 1
        else:
            for _ in range(2 * n):
                u, v = rng.integers(0, n, 2)
                if u != v:
                    a[u, v] = a[v, u] = 1
    return torch.from_numpy(adj), torch.from_numpy(mask), torch.from_numpy(y).long()


def one_hot_degree(adj, mask):
    """PyG's OneHotDegree transform on a padded batch (padding rows all zero)."""
    deg = adj.sum(-1).long().clamp(max=MAX_DEGREE)
    return F.one_hot(deg, MAX_DEGREE + 1).float() * mask.unsqueeze(-1)


class DenseGCNClassifier(nn.Module):
    """Two dense GCN convolutions, D~^-1/2 (A + I) D~^-1/2 X W (as GCNConv / DenseGCNConv),
    a masked mean readout and a linear head."""

    def __init__(self, in_features, hidden=32, classes=SHAPES):
        super().__init__()
        self.conv1 = nn.Linear(in_features, hidden)
        self.conv2 = nn.Linear(hidden, hidden)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x, adj, mask):
        a = adj + torch.diag_embed(mask.float())
        d = a.sum(-1).clamp(min=1).rsqrt()
        a = d.unsqueeze(-1) * a * d.unsqueeze(-2)
        m = mask.unsqueeze(-1).float()
        h = F.relu(self.conv1(a @ x)) * m
        h = F.relu(self.conv2(a @ h)) * m
        return self.head(h.sum(1) / m.sum(1))
