"""A graph auto-encoder for link prediction whose encoder passes messages over the WHOLE
edge list, held-out test edges included, while it is trained to score the training edges
and then scored on the test edges. Each test edge's two endpoints already exchange
features through that very edge, so their embeddings come out close and the test AUC
reads far above what the model can do on edges it has not been shown. Training runs
normally; the number it reports is wrong.

Reported: "possible mistake in examples/autoencoder.py" -
https://github.com/pyg-team/pytorch_geometric/issues/264 (the reporter found the example's
AUC and AP of 0.98 too good against the paper and saw ``model.encode(x, edge_index)`` in the
training step feed the validation and test edges to the encoder; the maintainer agreed
and fixed it on master, the encoder now reading ``train_pos_edge_index``; afterwards the
reporter measured an AUC of about 0.77). Here a two-layer GCN encoder and an inner-product
decoder on a graph of 400 nodes in 8 communities with noisy community features
(benchmarks/real_bugs/_link_prediction.py), 10% of the edges held out and scored against as
many non-edges, fresh random negatives each step as ``recon_loss`` draws them. Fix: build
the encoder's adjacency from the training edges only.

Measured (300 Adam steps at 1e-2, full batch): the test AUC reported is 0.941 for the bug
against 0.817 for the fixed twin, while the bug's own model, encoding the graph without the
test edges (what it meets on an edge it has not been shown), scores 0.800 - the reported
number overstates it by 0.14 and it is slightly worse than the twin; seeds shifted by 1000:
reported 0.953 against 0.862, the bug's model without the test edges 0.862 (no better than
the twin, overstated by 0.09).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._link_prediction import (NODES, GCNEncoder, auc, community_graph,
                                                   dot_scores, normalized_adjacency)

TITLE = "possible mistake in examples/autoencoder.py"
LINK = "https://github.com/pyg-team/pytorch_geometric/issues/264"
EXPECTED = ("TEST_EDGES_IN_MESSAGE_PASSING",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    x, train_pos, test_pos, test_neg, _ = community_graph(seed=0)
    train_only = normalized_adjacency(train_pos)
    if fixed:
        adjacency = train_only
    else:                       # BUG: the encoder reads every edge, the test edges included
        adjacency = normalized_adjacency(torch.cat([train_pos, test_pos], dim=1))
    model = GCNEncoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            z = model(x, adjacency)
            negative = torch.randint(0, NODES, train_pos.shape, generator=generator)
            pos, neg = dot_scores(z, train_pos), dot_scores(z, negative)
            loss = F.binary_cross_entropy_with_logits(
                torch.cat([pos, neg]), torch.cat([torch.ones_like(pos), torch.zeros_like(neg)]))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        z = model(x, adjacency)
        mon.held_out_auc = auc(dot_scores(z, test_pos), dot_scores(z, test_neg))
        z = model(x, train_only)
        mon.held_out_auc_without_test_edges = auc(dot_scores(z, test_pos),
                                                  dot_scores(z, test_neg))
    return mon
