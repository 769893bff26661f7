"""A first link predictor in the style of a hands-on tutorial - a GCN encoder and a
dot-product score u . v per node pair - whose labels are written the other way round:
0 for the real edges and 1 for the sampled non-edges. The test labels are built the same
way, so the script is consistent, but the model now has to give linked nodes a LOW dot
product, while message passing makes neighbours' embeddings alike (their dot product
large): the encoder fights its own smoothing and ranks held-out edges worse.

Reported: "Negative edges labels for link prediction" -
https://discuss.dgl.ai/t/negative-edges-labels-for-link-prediction/3160 (the tutorial
labelled "0, for positive edges" and "1, for negative edges"; the asker found that ones for
positives "delivered more appropriated results"). Here a two-layer GCN encoder over the
training edges of a 400-node community graph (benchmarks/real_bugs/_link_prediction.py),
a dot-product score, fresh random negatives every step, BCE with logits, Adam at 1e-2,
full batch. Fix: label the real edges 1 and the sampled non-edges 0 (train and test).

Measured (test ROC AUC of 10% held-out edges against as many non-edges, scored with the
script's own labels, so the bug's AUC is that of its non-edges over its edges): 0.515 with
the bug, 0.823 fixed; seeds + 1000: 0.501 vs 0.852.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._link_prediction import (GCNEncoder, auc, community_graph,
                                                   dot_scores, normalized_adjacency)
from benchmarks.real_bugs._lp332 import negatives

TITLE = "Negative edges labels for link prediction"
LINK = "https://discuss.dgl.ai/t/negative-edges-labels-for-link-prediction/3160"
EXPECTED = ("LOSS_SIGN_FLIPPED",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, train_pos, test_pos, test_neg, _ = community_graph(seed=0)
    adjacency = normalized_adjacency(train_pos)
    edge_label, non_edge_label = (1.0, 0.0) if fixed else (0.0, 1.0)   # BUG: edges 0, non-edges 1
    model = GCNEncoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            z = model(x, adjacency)
            neg = negatives(train_pos)
            scores = torch.cat([dot_scores(z, train_pos), dot_scores(z, neg)])
            labels = torch.cat([torch.full((train_pos.shape[1],), edge_label),
                                torch.full((neg.shape[1],), non_edge_label)])
            loss = F.binary_cross_entropy_with_logits(scores, labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        z = model(x, adjacency)
        pos, neg = dot_scores(z, test_pos), dot_scores(z, test_neg)
    # the script's AUC: label-1 pairs (its "links") ranked above label-0 pairs
    mon.held_out_auc = auc(pos, neg) if fixed else auc(neg, pos)
    return mon
