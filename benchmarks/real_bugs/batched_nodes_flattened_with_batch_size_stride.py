"""Graphs of a fixed size batched densely, node features (graphs, nodes, features) flattened
to (graphs * nodes, features) for message passing, whose edge list is flattened with the
wrong stride: a node's flat index is computed as ``graph * batch_size + node`` where it must
be ``graph * num_nodes + node``. With fewer graphs in a batch than nodes in a graph every
index stays in range, so nothing fails - but graph g's nodes are read at rows 8g..8g+9,
overlapping the next graph's: 28% of a batch's edges join two different molecules, some
nodes take another graph's bonds, and 14 of the 80 node rows (the last graphs' tails)
receive no message at all.

Reported: "A bug in tutorial 7" - https://github.com/phlippe/uvadlc_notebooks/issues/5 (the
GAT layer of the UvA deep-learning course's graph tutorial flattened the batched edge
indices as ``edges[:,0] * batch_size + edges[:,1]``; the reporter: "I think batch_size
should be replaced with num_nodes to get the correct index"; the author: "You are
absolutely correct ... we need to take a step size of num_nodes to get from the nodes in
batch 0 to the nodes in batch 1, not batch_size", fixed in the notebook). Here synthetic
molecules of exactly 10 atoms (benchmarks/real_bugs/_graph_readout.py), eight a batch, a
two-layer GIN with bond embeddings and mean readout, property regression. Fix: stride the
flat node index by the number of nodes per graph.

Measured (500 steps of 8 graphs, held-out R^2 on 304 graphs batched the same way): seed 0,
0.42 for the bug against 0.71 for the fixed twin; seeds shifted by 1000, 0.58
against 0.76.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._graph_readout import EdgeGIN, graph_batches, molecules, r2

TITLE = "A bug in tutorial 7"
LINK = "https://github.com/phlippe/uvadlc_notebooks/issues/5"
EXPECTED = ("BATCHED_EDGES_NOT_OFFSET",)
STEPS = 500
NODES = 10                   # atoms per molecule (fixed, the dense layout needs it)
BATCH = 8                    # molecules per batch (fewer than NODES: indices stay in range)


def dense_batch(graphs, fixed):
    """Flattened atoms (B*NODES,), edges (2, E) with flat indices, bonds (E,), batch, y."""
    atoms = torch.stack([g["atoms"] for g in graphs])             # (B, NODES)
    stride = NODES if fixed else len(graphs)                      # BUG: batch size as stride
    edges = torch.cat([g["edges"] + i * stride for i, g in enumerate(graphs)], 1)
    bonds = torch.cat([g["bonds"] for g in graphs])
    batch = torch.arange(len(graphs)).repeat_interleave(NODES)
    y = torch.tensor([[g["y"]] for g in graphs])
    return atoms.reshape(-1), edges, bonds, batch, y


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train = molecules(1200, seed=0, min_atoms=NODES, max_atoms=NODES)
    held_out = molecules(304, seed=1, min_atoms=NODES, max_atoms=NODES)
    model = EdgeGIN()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for graphs in graph_batches(train, steps, batch_size=BATCH):
            atoms, edges, bonds, batch, y = dense_batch(graphs, fixed)
            loss = F.mse_loss(model(atoms, edges, bonds, batch, len(graphs)), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    predicted, targets = [], []
    with torch.no_grad():
        for start in range(0, len(held_out), BATCH):
            graphs = held_out[start:start + BATCH]
            atoms, edges, bonds, batch, y = dense_batch(graphs, fixed)
            predicted.append(model(atoms, edges, bonds, batch, len(graphs)))
            targets.append(y)
    predicted, targets = torch.cat(predicted), torch.cat(targets)
    mon.held_out_r2 = r2(predicted, targets)
    mon.held_out_mae = float((predicted - targets).abs().mean())
    return mon
