"""Graph classification on graphs that come without node features, given a constant feature
of 1 on every node. The graphs' classes are their shapes, but a GCN sees the structure only
through what its normalised propagation does to the features: with all-equal inputs each
node's hidden value is a function of its own and its neighbours' degrees smoothed twice,
and after the mean readout most of the shape is gone. Nothing errors, the loss falls a
little and flattens; held-out graphs are classified far worse than with informative node
features.

Reported: "GCN graph classification without feature matrix" -
https://github.com/pyg-team/pytorch_geometric/issues/1880 (adapting examples/gcn.py to
binary graph classification of unweighted graphs: "I'm looking to learn on the
edge_indexes to label a graph 0 or 1. I'm not really sure if this is possible without the
feature matrix?"; the maintainer: "The 'common' method for applying graph classification on
graphs without features is to create some synthetic ones, e.g., node degree ... the
torch_geometric.transforms.OneHotDegree transform"). Here 800 padded graphs of 10 to 40
nodes in four shapes (benchmarks/real_bugs/_gnn_tutorials.py: trees, rings with chords,
hub trees, sparse random graphs), two dense GCN convolutions, a masked mean readout and a
linear head, Adam, shuffled batches of 32 graphs. Fix: one-hot degree node features
(OneHotDegree).

Measured (300 steps; accuracy on 400 held-out graphs): seed 0, 0.75 for the bug against
1.00 for the fixed twin; seeds shifted by 1000, 0.75 against 1.00.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._gnn_tutorials import (MAX_DEGREE, DenseGCNClassifier,
                                                 one_hot_degree, structural_graphs)

TITLE = "GCN graph classification without feature matrix"
LINK = "https://github.com/pyg-team/pytorch_geometric/issues/1880"
EXPECTED = ("CONSTANT_INPUTS",)
STEPS = 300
TRAIN_GRAPHS, TEST_GRAPHS, BATCH = 800, 400, 32


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    adj, mask, y = structural_graphs(TRAIN_GRAPHS + TEST_GRAPHS, seed=0)
    if fixed:
        x = one_hot_degree(adj, mask)                 # the fix: OneHotDegree features
    else:
        x = mask.unsqueeze(-1).float()                # BUG: a constant 1 on every node
    model = DenseGCNClassifier(x.shape[-1])
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator()
    g.manual_seed(int(torch.randint(10**6, ())))
    with nd.watch(model, optimizer, **watch) as mon:
        step = 0
        while step < steps:
            for idx in torch.randperm(TRAIN_GRAPHS, generator=g).split(BATCH):
                if step == steps:
                    break
                loss = F.cross_entropy(model(x[idx], adj[idx], mask[idx]), y[idx])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                mon.step(loss)
                step += 1
    model.eval()
    with torch.no_grad():
        test = slice(TRAIN_GRAPHS, None)
        logits = model(x[test], adj[test], mask[test])
        mon.held_out_accuracy = round(float((logits.argmax(1) == y[test]).float().mean()), 3)
    return mon
