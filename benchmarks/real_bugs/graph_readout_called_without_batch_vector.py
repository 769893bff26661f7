"""A graph-level regressor whose readout takes the batch vector as an optional argument,
``forward(x, edge_index, batch=None)``, pooling over ALL node rows when it is None - and a
training loop that calls ``model(x, edge_index)`` without it. The whole mini-batch of
molecules is then pooled into one graph vector: the model returns ONE prediction, (1, 1),
which the squared error broadcasts against the batch's (B, 1) targets. The best it can do
is predict each batch's mean; every molecule gets the same answer. Nothing fails (the
broadcast raises only a UserWarning), and the loss does go down, to the targets' variance.

Reported: "TypeError: global_add_pool() missing 1 required positional argument: 'batch'" -
https://github.com/pyg-team/pytorch_geometric/issues/4809 (asked to give ``batch`` a
default of None, the maintainer declined: "global_add_pool(x) can lead to some serious
bugs when not being careful", suggesting models take ``batch=None`` themselves; the same
request, https://github.com/pyg-team/pytorch_geometric/pull/9454, was turned down because
"in 99% of the cases, batch is what you need to input ... this leads to numerous mis-uses
downstream"). Here synthetic molecules (benchmarks/real_bugs/_graph_readout.py), a
two-layer GIN with bond embeddings whose mean readout pools everything when ``batch`` is
None, property regression. Fix: pass ``batch`` (and the number of graphs) to the model.

Measured (300 steps of 32 graphs, held-out R^2 on 300 graphs scored in batches of 32 the
way the loop calls the model): seed 0, -0.01 for the bug against 0.93 for the fixed twin;
seeds shifted by 1000, -0.01 against 0.92.

EXPECTED was written before scoring as LOSS_BROADCAST_OVER_BATCH / BATCH_MIXING. As it came,
watch gave LOSS_SHAPE_MISMATCH with a wrong message (the values "pair up one to one": 32
pairs for 32 targets, but from one prediction); its message now says that fewer
predictions than targets means each prediction stands for several samples, a pooling over
the whole batch, and LOSS_SHAPE_MISMATCH was added to EXPECTED after that scoring.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._graph_readout import (EdgeGIN, collate, graph_batches, mean_pool,
                                                 molecules, r2)

TITLE = "TypeError: global_add_pool() missing 1 required positional argument: 'batch'"
LINK = "https://github.com/pyg-team/pytorch_geometric/issues/4809"
EXPECTED = ("LOSS_BROADCAST_OVER_BATCH", "BATCH_MIXING", "LOSS_SHAPE_MISMATCH")
STEPS = 300
BATCH = 32


class Regressor(EdgeGIN):
    def forward(self, atoms, edges, bonds, batch=None, size=None):
        h = self.nodes(atoms, edges, bonds)
        if batch is None:                     # "one graph": every row pooled together
            pooled = h.mean(dim=0, keepdim=True)
        else:
            pooled = mean_pool(h, batch, size)
        return self.head(pooled)


def predict(model, graphs, fixed):
    atoms, edges, bonds, batch, y = collate(graphs)
    if fixed:
        return model(atoms, edges, bonds, batch, len(graphs)), y
    return model(atoms, edges, bonds), y      # BUG: the batch vector never passed


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = molecules(1200, seed=0), molecules(300, seed=1)
    model = Regressor()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for graphs in graph_batches(train, steps, batch_size=BATCH):
            output, y = predict(model, graphs, fixed)
            loss = F.mse_loss(output, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    predicted, targets = [], []
    with torch.no_grad():
        for start in range(0, len(held_out), BATCH):
            output, y = predict(model, held_out[start:start + BATCH], fixed)
            predicted.append(output.expand_as(y))
            targets.append(y)
    predicted, targets = torch.cat(predicted), torch.cat(targets)
    mon.held_out_r2 = r2(predicted, targets)
    mon.held_out_mae = float((predicted - targets).abs().mean())
    return mon
