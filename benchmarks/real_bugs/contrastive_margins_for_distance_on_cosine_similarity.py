"""A pairwise contrastive loss measured with cosine SIMILARITY but left at the margins meant
for a DISTANCE: pytorch-metric-learning's ``ContrastiveLoss(distance=CosineSimilarity())``
with its defaults ``pos_margin=0, neg_margin=1``. With a similarity the positive pairs'
loss is ``relu(pos_margin - sim)`` and the negative pairs' ``relu(sim - neg_margin)``:
a cosine never exceeds 1, so no negative pair ever has a loss, and a positive pair stops
having one as soon as its cosine is above 0. The loss is near zero from the first steps
and the embedding barely separates the classes.

Reported: "What loss to choose?" -
https://github.com/KevinMusgrave/pytorch-metric-learning/issues/504 (the user, with
``losses.ContrastiveLoss(distance=CosineSimilarity())``: "I am asking because the loss for
each batch I have obtaining very low loss"; the maintainer: "The default settings are
``pos_margin=0, neg_margin=1`` which doesn't make sense for cosine similarity. You could
try ``pos_margin=1, neg_margin=0`` instead."). Here the loss written out (every same-digit
pair of the batch a positive, every other pair a negative) on an MLP embedding of the
digits. Fix: margins for a similarity, ``pos_margin=1, neg_margin=0``.

Measured (300 steps): a nearest-centroid probe on the normalised embedding (centroids from
one half of the digits, read on the other) scores 0.747 with the bug, 0.993 for the fixed
twin; the bug's loss over its last 20 steps is 0.000 (the twin's 0.120).

How watch finds it: the loss's graph holds two hinges and divides by a vector norm
(cosines), and the loss is exactly 0 from the very first step - margins an untrained
model already meets (``monitor/loss_hinges.py``): MARGIN_OUTSIDE_SIMILARITY_RANGE, the
cause of the NO_GRADIENT it also reports.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "What loss to choose?"
LINK = "https://github.com/KevinMusgrave/pytorch-metric-learning/issues/504"
EXPECTED = ("MARGIN_OUTSIDE_SIMILARITY_RANGE",)
STEPS = 300


def embedding_net():
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 16))


def centroid_probe(model, x, y):
    with torch.no_grad():
        z = F.normalize(model(x), dim=1)
    half = len(x) // 2
    centroids = torch.stack([z[:half][y[:half] == c].mean(0) for c in range(10)])
    predicted = torch.cdist(z[half:], centroids).argmin(1)
    return (predicted == y[half:]).float().mean().item()


def contrastive_loss(z, labels, pos_margin, neg_margin):
    """pytorch-metric-learning's ContrastiveLoss read with a similarity: positive pairs
    pay for sim below pos_margin, negative pairs for sim above neg_margin."""
    z = F.normalize(z, dim=1)
    similarity = z @ z.T
    same = labels[:, None] == labels[None, :]
    upper = torch.triu(torch.ones_like(same), diagonal=1)
    positive = similarity[same & upper]
    negative = similarity[~same & upper]
    return torch.relu(pos_margin - positive).mean() + torch.relu(negative - neg_margin).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = embedding_net()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    if fixed:
        margins = dict(pos_margin=1.0, neg_margin=0.0)
    else:                       # BUG: the distance defaults kept with a similarity
        margins = dict(pos_margin=0.0, neg_margin=1.0)
    losses = []
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = contrastive_loss(model(xb), yb, **margins)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            losses.append(loss.item())
    mon.probe_accuracy = round(centroid_probe(model, x, y), 3)
    mon.final_loss = round(sum(losses[-20:]) / 20, 4)
    return mon
