"""A transductive node classifier whose training mask is a 0/1 INTEGER tensor (as the
dataset handed it out) and is used to index the logits and labels: ``logits[train_mask]``
with an int64 tensor is not a mask but a gather of rows 0 and 1, so the "training set" is
node 0 and node 1 repeated 600 times. The loss is a mean over 600 rows and falls quickly to
zero; the model has learned two nodes' labels, and the other labelled nodes never reach it.

Reported: "Train, Valid and Test masks for CitationGraphDatasets return a 0/1 array or
tensor" - https://github.com/dmlc/dgl/issues/1798 (the citation datasets' train, val and
test masks came as 0/1 arrays/tensors; the user asked for booleans "so that it can be used
effectively as mask directly"; the maintainers reorganised the built-in datasets so that
the masks are bool tensors for the PyTorch and TensorFlow backends, dmlc/dgl#1902). Here a
two-layer GCN labels the nodes of a homophilous community graph
(benchmarks/real_bugs/_gnn160.py: 600 nodes, 6 communities, 20% of the nodes labelled for
training), the masks stored as 0/1 int64 as the old datasets gave them. Fix: turn the masks
into booleans (``mask.bool()``) before indexing with them.

Measured (200 steps; accuracy on the 60% test nodes): seed 0, 0.36 for the bug against 0.87
for the fixed twin; seeds shifted by 1000, 0.28 against 0.88.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._gnn160 import GCN, accuracy, community_graph, gcn_norm

TITLE = "Train, Valid and Test masks for CitationGraphDatasets return a 0/1 array or tensor"
LINK = "https://github.com/dmlc/dgl/issues/1798"
EXPECTED = ("MASK_USED_AS_INDEX",)
STEPS = 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, adjacency, train, val, test = community_graph(seed=0)
    train_mask = train.long()                # as the dataset stored it: 0/1 integers
    if fixed:
        train_mask = train_mask.bool()       # the fix: a boolean mask selects the nodes
    propagate = gcn_norm(adjacency)
    model = GCN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=5e-4)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            logits = model(x, propagate)
            # BUG when not fixed: an int64 0/1 tensor gathers rows 0 and 1, not a mask
            loss = F.cross_entropy(logits[train_mask], y[train_mask])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    logits = model(x, propagate)
    mon.held_out_accuracy = accuracy(logits, y, test)
    mon.validation_accuracy = accuracy(logits, y, val)
    return mon
