"""A graph convolution whose self-loops are added AFTER the symmetric normalisation:
``D^-1/2 A D^-1/2 + I`` instead of ``D~^-1/2 (A + I) D~^-1/2`` (D~ the degrees of A + I).
Every node keeps its own features at full weight 1 while its whole neighbourhood shares a
total weight of about 1, so on a graph whose node features are noisy - where the
neighbours carry most of the evidence - each layer passes on half of a node's noise
untouched; the propagation matrix also has eigenvalues up to 2, so two layers scale the
features by up to 4. Nothing errors, the loss falls to the same floor: the model simply
generalises worse.

Reported: "GCNProp forward operations" - https://github.com/pyg-team/pytorch_geometric/issues/48
(the user's older PyG normalised the adjacency first and added the self-loops afterwards,
the reverse of the GCN paper and of Kipf's reference code, and "was having a hard time
getting good performance"; after the commit that reversed the order "the performance is
better now"; the maintainer: "there was a small normalization bug. I was computing
D^-0.5 (A + I) D^-0.5 instead of (D + 1)^-0.5 (A + I) (D+1)^-0.5, but this should be
fixed now"). Here a two-layer GCN labels the nodes of a homophilous community graph
(benchmarks/real_bugs/_gnn160.py: 600 nodes, 6 communities, features a noisy view of the
community, 20% of the nodes labelled for training), Adam, full batch. Fix: add the
self-loops first and normalise A + I by its own degrees.

Measured (200 steps; accuracy on the 60% test nodes): seed 0, 0.79 for the bug against
0.87 for the fixed twin; seeds shifted by 1000, 0.76 against 0.88.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._gnn160 import GCN, NODES, accuracy, community_graph, gcn_norm

TITLE = "GCNProp forward operations"
LINK = "https://github.com/pyg-team/pytorch_geometric/issues/48"
EXPECTED = ("SELF_LOOPS_ADDED_AFTER_NORMALISATION",)
STEPS = 200


def normalised_then_looped(adjacency):
    """D^-1/2 A D^-1/2 + I: the self-loops added after the normalisation."""
    d = adjacency.sum(1).clamp(min=1).rsqrt()
    return d[:, None] * adjacency * d[None, :] + torch.eye(NODES)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, adjacency, train, val, test = community_graph(seed=0)
    if fixed:
        propagate = gcn_norm(adjacency)                  # the fix: (A + I), then normalise
    else:
        propagate = normalised_then_looped(adjacency)    # BUG: normalise A, then add I
    model = GCN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=5e-4)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x, propagate)[train], y[train])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    logits = model(x, propagate)
    mon.held_out_accuracy = accuracy(logits, y, test)
    mon.validation_accuracy = accuracy(logits, y, val)
    return mon
