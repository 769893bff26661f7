"""A molecule-property GNN whose attention readout normalises its node weights with one
softmax over every node of the batch, not over each molecule's own atoms. The graphs are
batched PyG-style (atoms stacked, a ``batch`` vector), so the softmax runs across all the
molecules at once: each molecule's weights sum to its share of the batch's attention mass
rather than to 1, so its pooled vector shrinks or grows with whatever other molecules were
drawn next to it, and the same molecule gets a different prediction in another batch. The
training loss still falls; the held-out error stays high.

Reported: "GlobalAttnSumPool is calculating softmax over all samples in batch in disjoint
mode." - https://github.com/danielegrattarola/spektral/issues/302 ("this means that in
disjoint mode we are mixing together information from different samples in batch").
Here the synthetic molecules of ``_graph_readout`` (an intensive property per atom), its
two-layer GIN with bond embeddings, a gated attention readout (one score per atom), Adam
3e-3, 400 steps of 32 molecules; the held-out molecules scored in batches of 32 as a test
loader gives them.

Fix: a softmax per molecule - subtract each graph's maximum score, exponentiate, divide by
the graph's own sum (scatter over the batch vector), so each molecule's weights sum to 1.

Measured (held-out R^2, 400 molecules): 0.49 with the bug, 0.93 fixed; seeds + 1000:
0.63 vs 0.95.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._graph_batches290 import score
from benchmarks.real_bugs._graph_readout import (HIDDEN, EdgeGIN, collate, graph_batches,
                                                 molecules)

TITLE = ("GlobalAttnSumPool is calculating softmax over all samples in batch in disjoint "
         "mode.")
LINK = "https://github.com/danielegrattarola/spektral/issues/302"
EXPECTED = ("BATCH_MIXING",)
STEPS = 400
BATCH = 32


class AttentionPoolGIN(EdgeGIN):
    """The GIN of ``_graph_readout`` read out by a learned attention over each graph's atoms."""

    def __init__(self, per_graph):
        super().__init__()
        self.gate = nn.Linear(HIDDEN, 1)
        self.per_graph = per_graph

    def attention_pool(self, h, batch, size):
        scores = self.gate(h).squeeze(-1)                              # (nodes,)
        if self.per_graph:
            top = torch.full((size,), -1e9).scatter_reduce(0, batch, scores, reduce="amax")
            weights = torch.exp(scores - top[batch])
            total = torch.zeros(size).index_add_(0, batch, weights)
            weights = weights / total[batch]
        else:
            weights = torch.softmax(scores, dim=0)      # BUG: one softmax over the whole batch
        return torch.zeros(size, h.shape[1]).index_add_(0, batch, weights[:, None] * h)

    def forward(self, atoms, edges, bonds, batch, size):
        return self.head(self.attention_pool(self.nodes(atoms, edges, bonds), batch, size))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train = molecules(1200, seed=0)
    held_out = molecules(400, seed=1)
    model = AttentionPoolGIN(per_graph=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for graphs in graph_batches(train, steps, batch_size=BATCH):
            atoms, edges, bonds, batch, y = collate(graphs)
            loss = F.mse_loss(model(atoms, edges, bonds, batch, len(graphs)), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    predicted, targets = [], []
    with torch.no_grad():
        for start in range(0, len(held_out), BATCH):
            graphs = held_out[start:start + BATCH]
            atoms, edges, bonds, batch, y = collate(graphs)
            predicted.append(model(atoms, edges, bonds, batch, len(graphs)))
            targets.append(y)
    return score(mon, torch.cat(predicted), torch.cat(targets))
