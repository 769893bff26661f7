"""Shared pieces of real-bug batch 332 (graph link prediction written by hand from first
tutorials). The graph, its split and the GCN encoder come from
``benchmarks/real_bugs/_link_prediction.py`` (400 nodes in 8 communities, noisy community
features, 10% of the edges held out against as many non-edges, scored by ROC AUC); here an
MLP link decoder over the two endpoints' embeddings and the plain training loop the cases
share: fresh uniform negatives every step (from the global torch generator, so the
benchmark's seed shift moves them), BCE with logits, Adam, full batch.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._link_prediction import (NODES, GCNEncoder, auc, community_graph,
                                                   normalized_adjacency)


class MLPDecoder(nn.Module):
    """Scores a node pair from the product of its two embeddings: Linear -> ReLU ->
    Dropout -> Linear, one logit per pair (``squash=True`` ends it with a sigmoid)."""

    def __init__(self, hidden=32, width=32, dropout=0.0, squash=False):
        super().__init__()
        self.first = nn.Linear(hidden, width)
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(width, 1)
        self.squash = squash

    def forward(self, z, edges):
        h = self.drop(F.relu(self.first(z[edges[0]] * z[edges[1]])))
        s = self.out(h).squeeze(-1)
        return torch.sigmoid(s) if self.squash else s


class LinkModel(nn.Module):
    def __init__(self, decoder):
        super().__init__()
        self.encoder = GCNEncoder()
        self.decoder = decoder

    def forward(self, x, adjacency, edges):
        return self.decoder(self.encoder(x, adjacency), edges)


def graph():
    x, train_pos, test_pos, test_neg, _ = community_graph(seed=0)
    return x, train_pos, test_pos, test_neg, normalized_adjacency(train_pos)


def negatives(like):
    return torch.randint(0, NODES, like.shape)


def bce_step(model, optimizer, x, adjacency, train_pos):
    optimizer.zero_grad()
    neg = negatives(train_pos)
    scores = model(x, adjacency, torch.cat([train_pos, neg], dim=1))
    labels = torch.cat([torch.ones(train_pos.shape[1]), torch.zeros(neg.shape[1])])
    loss = F.binary_cross_entropy_with_logits(scores, labels)
    loss.backward()
    optimizer.step()
    return loss


@torch.no_grad()
def test_auc(model, x, adjacency, test_pos, test_neg):
    return auc(model(x, adjacency, test_pos), model(x, adjacency, test_neg))
