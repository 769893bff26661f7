"""A GCN for a graph-level property of many small graphs that share one topology (one
molecular scaffold, its atoms carrying different charges per sample). The batch's node
features are flattened to (batch * nodes, features), but the edge index is the single
scaffold's, never repeated and offset for the other graphs: message passing runs only
inside the first graph of each batch, every other graph's atoms just keep their own
features (their self-loops), and the readout sees no bond at all for 31 graphs out of 32.
The property depends on which charged atoms are bonded, so the model can only fit the
per-atom part; the loss falls to that floor and stays there.

Reported: "[BUG]" - https://github.com/ai4co/rl4co/issues/227 ("edge_index is generated
for a single graph and not adjusted for batching", so GCNConv is "only properly updating
nodes of the first graph"). Here a fixed 12-atom scaffold (a ring with two bridges), two
features per atom (a charge and a second random descriptor), a property averaging over
the atoms the positive part of the charge summed over each atom and its bonded
neighbours, plus a per-atom term, standardised; a plain two-layer GCN
(self-loops, symmetric degree normalisation, written with index_add), a per-graph mean
readout and an MLP head, Adam 3e-3, 300 steps of 32 graphs; held-out graphs scored in
batches of 32.

Fix: repeat the scaffold's edge index for every graph of the batch, offset by
graph * nodes, so each graph's atoms pass messages along its own bonds.

Measured (held-out R^2, 512 graphs): 0.90 with the bug, 0.99 fixed; seeds + 1000:
0.90 vs 0.99.
Held-out mean absolute error: 0.24 vs 0.09; seeds + 1000: 0.24 vs 0.08.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._graph_readout import r2

TITLE = "[BUG]"
LINK = "https://github.com/ai4co/rl4co/issues/227"
EXPECTED = ("BATCHED_EDGES_NOT_OFFSET",)
STEPS = 300
BATCH = 32
NODES = 12
HIDDEN = 48


def scaffold():
    """The shared topology: a 12-ring with bridges 0-6 and 3-9, both directions, (2, E)."""
    pairs = [(i, (i + 1) % NODES) for i in range(NODES)] + [(0, 6), (3, 9)]
    src = [a for a, b in pairs] + [b for a, b in pairs]
    dst = [b for a, b in pairs] + [a for a, b in pairs]
    return torch.tensor([src, dst], dtype=torch.long)


def samples(count, seed):
    """x (count, NODES, 2) float32, y (count, 1): the mean over atoms of the positive part
    of the charge summed over the atom and its bonded neighbours, plus a per-atom term,
    centred and scaled with fixed constants."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 1, (count, NODES, 2)).astype(np.float32)
    edges = scaffold().numpy()
    charge = x[:, :, 0]
    around = charge.copy()
    np.add.at(around, (slice(None), edges[1]), charge[:, edges[0]])
    bonded = np.maximum(around, 0).mean(1)
    atomwise = np.tanh(x[:, :, 1]).mean(1)
    y = (bonded + 0.5 * atomwise - 0.73) / 0.55
    return torch.from_numpy(x), torch.from_numpy(y.astype(np.float32))[:, None]


def normalised_adjacency(edges, nodes):
    """Edge list with self-loops and its symmetric D^-1/2 (A + I) D^-1/2 weights."""
    loops = torch.arange(nodes)
    src = torch.cat([edges[0], loops])
    dst = torch.cat([edges[1], loops])
    degree = torch.zeros(nodes).index_add_(0, dst, torch.ones(len(dst)))
    weight = degree[src].rsqrt() * degree[dst].rsqrt()
    return src, dst, weight


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Linear(2, HIDDEN)
        self.conv2 = nn.Linear(HIDDEN, HIDDEN)
        self.head = nn.Sequential(nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, 1))

    @staticmethod
    def propagate(h, src, dst, weight):
        return torch.zeros_like(h).index_add_(0, dst, weight[:, None] * h[src])

    def forward(self, x, edges):
        batch, nodes, _ = x.shape
        h = x.reshape(batch * nodes, -1)                       # flatten the batch
        src, dst, weight = normalised_adjacency(edges, batch * nodes)
        h = torch.relu(self.propagate(self.conv1(h), src, dst, weight))
        h = torch.relu(self.propagate(self.conv2(h), src, dst, weight))
        return self.head(h.reshape(batch, nodes, -1).mean(1))


def batch_edges(batch, fixed):
    edges = scaffold()
    if fixed:
        return torch.cat([edges + i * NODES for i in range(batch)], 1)
    return edges                              # BUG: one graph's edges for the whole batch


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = samples(2048, seed=0)
    held_x, held_y = samples(512, seed=1)
    model = GCN()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    rng = np.random.default_rng(0)
    with nd.watch(model, optimizer, **watch) as mon:
        done = 0
        while done < steps:
            order = torch.from_numpy(rng.permutation(len(x)))
            for start in range(0, len(x) - BATCH + 1, BATCH):
                index = order[start:start + BATCH]
                loss = F.mse_loss(model(x[index], batch_edges(BATCH, fixed)), y[index])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
                if done == steps:
                    break
    with torch.no_grad():
        predicted = torch.cat([model(held_x[s:s + BATCH], batch_edges(BATCH, fixed))
                               for s in range(0, len(held_x), BATCH)])
    mon.held_out_r2 = r2(predicted, held_y)
    mon.held_out_mae = float((predicted - held_y).abs().mean())
    return mon
