"""Link prediction whose loss hands the NEGATIVE edges' scores to BCEWithLogitsLoss as the
targets: ``criterion(pos_score, neg_score)``. The positive edges' logits are regressed on
the negative edges' logits (targets far outside [0, 1], and with a gradient of their own),
so no pair is ever told it is a non-edge: the loss is ``softplus(p) - n * p``, which the
encoder lowers without end by pushing the sampled non-edges' scores up together with the
edges' ones. The loss falls (through zero, on to large negative values) and nothing errors.

Reported: "Major bug found in link prediction" - https://github.com/wyx11112/GCMAE/issues/3
(besides test edges kept in the training split, the reporter points at
``loss_lp = criterion(pos_score, neg_score)`` with ``criterion = torch.nn.BCEWithLogitsLoss()``:
"This seems to be not aligned with what you described in paper"; the issue was closed).
Only the loss is reproduced here: a two-layer GraphSAGE (mean aggregation) encodes the nodes
of a community graph (benchmarks/real_bugs/_gnn160.py, clearer features than the node
cases) on the training edges, a dot product scores a pair, as many non-edges as training
edges are drawn as negatives, Adam, full batch; 10% of the edges and as many non-edges are
held out. Fix: binary cross-entropy of the positive scores against 1 and of the negative
scores against 0.

Measured (60 steps; held-out ROC AUC of edges against non-edges): seed 0, 0.52 for the bug
against 0.73 for the fixed twin; seeds shifted by 1000, 0.54 against 0.71.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._gnn160 import FEATURES, NODES, community_graph

TITLE = "Major bug found in link prediction"
LINK = "https://github.com/wyx11112/GCMAE/issues/3"
EXPECTED = ("NEGATIVE_SCORES_AS_TARGETS",)
STEPS = 60
TEST_SHARE = 0.1
NOISE = 1.0                  # features: a clearer view of the community than the default


class SAGE(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.self1, self.neigh1 = nn.Linear(FEATURES, hidden), nn.Linear(FEATURES, hidden)
        self.self2, self.neigh2 = nn.Linear(hidden, hidden), nn.Linear(hidden, hidden)

    def forward(self, x, mean_adj):
        h = F.relu(self.self1(x) + self.neigh1(mean_adj @ x))
        return self.self2(h) + self.neigh2(mean_adj @ h)


def score(z, pairs):
    return (z[pairs[0]] * z[pairs[1]]).sum(1)


@torch.no_grad()
def auc(positive, negative):
    p, n = positive[:, None], negative[None, :]
    return round(float(((p > n).float() + 0.5 * (p == n).float()).mean()), 3)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(1)
    x, _, adjacency, *_ = community_graph(seed=0, noise=NOISE)
    edges = torch.triu(adjacency, 1).nonzero().T                 # each undirected edge once
    order = torch.from_numpy(rng.permutation(edges.shape[1]))
    test_size = int(edges.shape[1] * TEST_SHARE)
    test_pos, train_pos = edges[:, order[:test_size]], edges[:, order[test_size:]]
    non_edges = torch.triu(1 - adjacency - torch.eye(NODES), 1).nonzero().T
    pick = torch.from_numpy(rng.choice(non_edges.shape[1], edges.shape[1], replace=False))
    test_neg, train_neg = non_edges[:, pick[:test_size]], non_edges[:, pick[test_size:]]

    train_adj = torch.zeros(NODES, NODES)        # the encoder sees the training edges only
    train_adj[train_pos[0], train_pos[1]] = train_adj[train_pos[1], train_pos[0]] = 1.0
    mean_adj = train_adj / train_adj.sum(1, keepdim=True).clamp(min=1)
    criterion = nn.BCEWithLogitsLoss()

    model = SAGE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            z = model(x, mean_adj)
            pos_score, neg_score = score(z, train_pos), score(z, train_neg)
            if fixed:                            # the fix: edges against 1, non-edges against 0
                loss = criterion(torch.cat([pos_score, neg_score]),
                                 torch.cat([torch.ones_like(pos_score),
                                            torch.zeros_like(neg_score)]))
            else:
                loss = criterion(pos_score, neg_score)   # BUG: negatives' scores as targets
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        z = model(x, mean_adj)
        mon.held_out_auc = auc(score(z, test_pos), score(z, test_neg))
    return mon
