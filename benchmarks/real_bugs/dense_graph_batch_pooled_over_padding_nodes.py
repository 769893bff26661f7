"""Graph classification on dense, padded batches (PyG's ToDense + DenseDataLoader): every
graph is padded to MAX_NODES node slots and the batch comes with a ``mask`` of the real
nodes - which the model ignores (mask=None). The padding slots have no features and no
edges, but after a layer with a bias they hold relu(bias) like any node, and the mean
readout averages over all MAX_NODES slots: a graph's embedding is its nodes' mean shrunk by
n / MAX_NODES plus a share of padding, so a small graph of one class looks like a large
graph of another. Nothing errors; the loss falls; held-out graphs are misclassified.

Reported: "Trying to understand DenseDataLoader in `enzymes_diff_pool.py` example" -
https://github.com/pyg-team/pytorch_geometric/issues/881 ("DenseDataLoader returns a mask
for each batch ... the nodes which do not belong to a specific graph will just have a zero
connection in the adjacency matrix anyway, right? Does this mask exist only for efficiency
reasons ... how bad would it be if I just ignore mask and set it to None?"). Here 600
random graphs of 4 to 40 nodes (benchmarks/real_bugs/_gnn_tutorials.py: 4 classes set by
the mean of the nodes' noisy features), two dense mean-aggregation graph convolutions, a
mean readout and a linear head, Adam, shuffled batches of 32 graphs. Fix: pass the mask,
so the readout averages the real nodes only.

Measured (300 steps; accuracy on 400 held-out graphs): seed 0, 0.80 for the bug against
0.85 for the fixed twin; seeds shifted by 1000, 0.81 against 0.90.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._gnn_tutorials import DenseGraphClassifier, padded_graphs

TITLE = "Trying to understand DenseDataLoader in `enzymes_diff_pool.py` example"
LINK = "https://github.com/pyg-team/pytorch_geometric/issues/881"
EXPECTED = ("PADDING_NOT_MASKED",)
STEPS = 300
TRAIN_GRAPHS, TEST_GRAPHS, BATCH = 600, 400, 32


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, adj, mask, y = padded_graphs(TRAIN_GRAPHS + TEST_GRAPHS, seed=0)
    model = DenseGraphClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator()
    g.manual_seed(int(torch.randint(10**6, ())))
    with nd.watch(model, optimizer, **watch) as mon:
        step = 0
        while step < steps:
            for idx in torch.randperm(TRAIN_GRAPHS, generator=g).split(BATCH):
                if step == steps:
                    break
                m = mask[idx] if fixed else None      # BUG when not fixed: mask ignored
                loss = F.cross_entropy(model(x[idx], adj[idx], m), y[idx])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                mon.step(loss)
                step += 1
    model.eval()
    with torch.no_grad():
        test = slice(TRAIN_GRAPHS, None)
        logits = model(x[test], adj[test], mask[test] if fixed else None)
        mon.held_out_accuracy = round(float((logits.argmax(1) == y[test]).float().mean()), 3)
    return mon
