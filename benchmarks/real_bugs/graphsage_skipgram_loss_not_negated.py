"""An unsupervised GraphSAGE-style link objective written as a skip-gram loss,
``aff(u, v) - log(sum_k exp(aff(u, n_k)))`` summed over the positive pairs, and then
MINIMISED as it stands: the expression is the log-likelihood-like score to maximise, so
gradient descent pushes each real edge's two (unit-norm) embeddings apart and pulls the
sampled non-edges together. The loss falls smoothly to its floor; the embeddings have
learned the opposite of the graph.

Reported: "should this be negated? since it is loss" -
https://github.com/williamleif/GraphSAGE/issues/151 (on the repository's _skipgram_loss in
graphsage/prediction.py, which returns the sum of ``aff - neg_cost`` as the loss). Here a
two-layer GCN encoder over the training edges of a 400-node community graph
(benchmarks/real_bugs/_link_prediction.py), its outputs L2-normalised as GraphSAGE does,
5 uniform negatives per positive drawn fresh every step, the skip-gram loss averaged over
the positive pairs, Adam at 1e-2, full batch. Fix: negate it,
``-(aff - logsumexp(neg_aff))``.

Measured (test ROC AUC of 10% held-out edges against as many non-edges, by the cosine of
the two embeddings): 0.404 with the bug, 0.865 fixed; seeds + 1000: 0.502 vs 0.880.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._link_prediction import (NODES, GCNEncoder, auc, community_graph,
                                                   dot_scores, normalized_adjacency)

TITLE = "should this be negated? since it is loss"
LINK = "https://github.com/williamleif/GraphSAGE/issues/151"
EXPECTED = ("LOSS_SIGN_FLIPPED", "LOSS_UNBOUNDED_BELOW")
STEPS = 300
NEGATIVES = 5


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, train_pos, test_pos, test_neg, _ = community_graph(seed=0)
    adjacency = normalized_adjacency(train_pos)
    model = GCNEncoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            z = F.normalize(model(x, adjacency), dim=1)
            u, v = train_pos
            aff = (z[u] * z[v]).sum(1)
            neg = torch.randint(0, NODES, (u.shape[0], NEGATIVES))
            neg_aff = (z[u][:, None, :] * z[neg]).sum(-1)
            skipgram = aff - torch.logsumexp(neg_aff, dim=1)
            loss = -skipgram.mean() if fixed else skipgram.mean()   # BUG: not negated
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        z = F.normalize(model(x, adjacency), dim=1)
        mon.held_out_auc = auc(dot_scores(z, test_pos), dot_scores(z, test_neg))
    return mon
