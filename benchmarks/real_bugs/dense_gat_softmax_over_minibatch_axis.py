"""A relational graph-attention network for a molecule property, written on padded dense
batches (atom ids (B, N), one adjacency per bond type plus the self-loops, (B, R, N, N)),
whose attention softmax is taken over the minibatch axis instead of over each atom's
neighbours. The scores of non-bonded pairs are pushed to -10000 first, as the dense GAT
recipe does, but the softmax then compares the same (i, j) slot across the molecules of
the batch: an atom's weights no longer sum to 1 over its neighbours, a bond shared by few
molecules gets a large weight and one shared by many a small one, and a slot that is a
bond in no molecule (padding included) gets 1/B. The loss falls; the held-out error stays
high.

Reported: "Relational Graph attention networks" -
https://github.com/chainer/chainer-chemistry/pull/217 (review: "softmax axis is 1, do
you want to apply along minibatch??" - the author: "This is a mistake."). Here the
synthetic molecules of ``_graph_readout`` padded per batch, an atom embedding, two
single-head relational attention layers (a value map per bond type and one for the
self-loop, one softmax over every typed neighbour slot), a masked mean readout and an MLP
head, Adam 3e-3, 400 steps of 32 molecules; the held-out molecules scored in padded
batches of 32.

Fix: the softmax over the neighbour slots (the last axis), so each atom's weights over its
bonded neighbours and itself sum to 1.

Measured (held-out R^2, 400 molecules): 0.80 with the bug, 0.96 fixed; seeds + 1000:
0.85 vs 0.97.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._graph_batches290 import masked_mean, padded, score, typed_adjacency
from benchmarks.real_bugs._graph_readout import (ATOM_TYPES, BOND_TYPES, HIDDEN, graph_batches,
                                                 molecules)

TITLE = "Relational Graph attention networks"
LINK = "https://github.com/chainer/chainer-chemistry/pull/217"
EXPECTED = ("BATCH_MIXING",)
STEPS = 400
BATCH = 32
RELATIONS = BOND_TYPES + 1     # one per bond type, and the self-loop


class RelationalAttention(nn.Module):
    """One attention layer over typed neighbours: a value map per relation (each bond type
    and the self-loop), scores for every (relation, neighbour) slot, non-neighbours at
    -10000, a softmax, and the weighted sum of the values."""

    def __init__(self, axis):
        super().__init__()
        self.value = nn.ModuleList([nn.Linear(HIDDEN, HIDDEN) for _ in range(RELATIONS)])
        self.source = nn.Linear(HIDDEN, 1)
        self.target = nn.Linear(HIDDEN, 1)
        self.axis = axis

    def forward(self, h, typed):
        batch, _, size, _ = typed.shape
        z = torch.stack([value(h) for value in self.value], 1)        # (B, R, N, F)
        e = F.leaky_relu(self.source(h)[:, None] + self.target(z).transpose(2, 3), 0.2)
        e = torch.where(typed > 0, e, torch.full_like(e, -10000.0))    # (B, R, N, N)
        e = e.transpose(1, 2).reshape(batch, size, RELATIONS * size)  # (B, N, R*N)
        if self.axis == "neighbours":
            alpha = torch.softmax(e, dim=-1)
        else:
            alpha = torch.softmax(e, dim=0)            # BUG: along the minibatch axis
        return F.elu(alpha @ z.reshape(batch, RELATIONS * size, HIDDEN))


class RelationalGAT(nn.Module):
    def __init__(self, axis):
        super().__init__()
        self.embed = nn.Embedding(ATOM_TYPES, HIDDEN)
        self.layers = nn.ModuleList([RelationalAttention(axis), RelationalAttention(axis)])
        self.head = nn.Sequential(nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, 1))

    def forward(self, atoms, typed, mask):
        h = self.embed(atoms)
        for layer in self.layers:
            h = h + layer(h, typed)
        return self.head(masked_mean(h, mask))


def batch_tensors(graphs):
    atoms, _, mask, y = padded(graphs)
    return atoms, typed_adjacency(graphs, BOND_TYPES), mask, y


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train = molecules(1200, seed=0)
    held_out = molecules(400, seed=1)
    model = RelationalGAT("neighbours" if fixed else "minibatch")
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for graphs in graph_batches(train, steps, batch_size=BATCH):
            atoms, typed, mask, y = batch_tensors(graphs)
            loss = F.mse_loss(model(atoms, typed, mask), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    predicted, targets = [], []
    with torch.no_grad():
        for start in range(0, len(held_out), BATCH):
            atoms, typed, mask, y = batch_tensors(held_out[start:start + BATCH])
            predicted.append(model(atoms, typed, mask))
            targets.append(y)
    return score(mon, torch.cat(predicted), torch.cat(targets))
