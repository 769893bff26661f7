"""A batch of molecular graphs merged into one graph, node rows stacked, whose edge lists
are shifted by the node count of the graph just before them instead of by the running
total of all the graphs before them. The first two graphs come out right; from the third
on every graph's bonds point into the rows of earlier graphs (graph 3 of sizes [4, 3, 5, 6]
is shifted by 3 instead of 7, graph 4 by 5 instead of 12). The indices all stay in range,
so nothing fails: most molecules' atoms receive messages from other molecules' atoms, and
their own bonds are lost. A graph-level readout then averages atoms whose neighbourhoods
are someone else's.

Reported: "Batchgraph edge_index bug fix" -
https://github.com/deepchem/deepchem/pull/3291 (the maintainers' fix in BatchGraphData:
"num_nodes_list is used to add the number of nodes to each subsequent edge_index value,
however, it does not use a cumulative sum. For example, if the number of nodes in the graph
list is [4, 3, 5, 6], the cumulative sum which should be added to each index is
[4,7,12,18]. However it is not the cumulative sum that is added, but the nodes at each
graph"). Here synthetic molecules (benchmarks/real_bugs/_graph_readout.py: 4 to 12 atoms,
a property built from atom types and typed bonds), a two-layer GIN with bond embeddings,
a mean readout per graph, property regression with Adam, 32 molecules a batch; the
held-out molecules are batched by the same collate. Fix: add the cumulative node count
(the number of nodes stacked before each graph) to its edge indices.

EXPECTED: BATCHED_EDGES_NOT_OFFSET is the nearest code (its text names edges left counting
from 0; here they are offset, by the wrong amount), with BATCH_MIXING for the molecules
that read atoms of other molecules.

Measured (held-out R^2, 300 steps, 300 held-out molecules): 0.42 with the bug, 0.93
fixed; seeds + 1000: 0.54 vs 0.92.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._graph_readout import EdgeGIN, graph_batches, molecules, r2

TITLE = "Batchgraph edge_index bug fix"
LINK = "https://github.com/deepchem/deepchem/pull/3291"
EXPECTED = ("BATCHED_EDGES_NOT_OFFSET", "BATCH_MIXING")
STEPS = 300
BATCH = 32


def batch_graphs(graphs, fixed):
    """BatchGraphData: atoms (N,), edges (2, E), bonds (E,), batch (N,), y (B, 1)."""
    atoms, edges, bonds, batch = [], [], [], []
    num_nodes_list = [len(g["atoms"]) for g in graphs]
    offset = 0
    for i, g in enumerate(graphs):
        if fixed:
            shift = offset                               # nodes stacked before graph i
        else:
            shift = num_nodes_list[i - 1] if i else 0    # BUG: the previous graph's count only
        atoms.append(g["atoms"])
        edges.append(g["edges"] + shift)
        bonds.append(g["bonds"])
        batch.append(torch.full((num_nodes_list[i],), i, dtype=torch.long))
        offset += num_nodes_list[i]
    y = torch.tensor([[g["y"]] for g in graphs])
    return torch.cat(atoms), torch.cat(edges, 1), torch.cat(bonds), torch.cat(batch), y


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = molecules(1200, seed=0), molecules(300, seed=1)
    model = EdgeGIN()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for graphs in graph_batches(train, steps, batch_size=BATCH):
            atoms, edges, bonds, batch, y = batch_graphs(graphs, fixed)
            loss = F.mse_loss(model(atoms, edges, bonds, batch, len(graphs)), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    predicted, targets = [], []
    with torch.no_grad():
        for start in range(0, len(held_out), BATCH):
            graphs = held_out[start:start + BATCH]
            atoms, edges, bonds, batch, y = batch_graphs(graphs, fixed)
            predicted.append(model(atoms, edges, bonds, batch, len(graphs)))
            targets.append(y)
    predicted, targets = torch.cat(predicted), torch.cat(targets)
    mon.held_out_r2 = r2(predicted, targets)
    mon.held_out_mae = float((predicted - targets).abs().mean())
    return mon
