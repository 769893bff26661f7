"""Online pair mining for a siamese network's contrastive loss picks the "hard" negative
pairs by sorting the negative pairs' distances and keeping the LARGEST ones. The hardest
negatives are the closest ones (different classes that the embedding still puts together);
the farthest are the easiest, already beyond the margin, so their hinge
``relu(margin - d)^2`` is zero. Only the positive pairs' pull is left: every class is drawn
towards every other until the farthest negatives fall inside the margin, and the embedding
separates the digits much worse.

Reported: "About choosing hard negative pairs" -
https://github.com/adambielski/siamese-triplet/issues/3 ("the hard negative pairs should be
the pairs with closest distances, since the objective is to separate the embeddings in a
negative pair"; the maintainer: "you're absolutely right, that's a stupid bug", fixed in
PR #4). Here an MLP embedding of the digits in 8 dimensions, every positive pair of the
batch and as many mined negative pairs. Fix: keep the negatives with the SMALLEST distances
(``argsort()[:k]``).

Measured (300 steps): a nearest-centroid probe on the embedding (centroids from one half
of the digits, read on the other) scores 0.598 with the bug, 0.990 for the fixed twin.

Why watch misses it: the loss falls and the embedding contracts, as a healthy online-
mining run on easy data does; which negative pairs entered the loss is decided by an
argsort of detached distances in the user's code, and the chosen indices are freed with
the graph after backward (tests/test_real_bugs.py, KNOWN_MISSES).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "About choosing hard negative pairs"
LINK = "https://github.com/adambielski/siamese-triplet/issues/3"
EXPECTED = ("HARD_NEGATIVES_MINED_AS_EASIEST",)
STEPS = 300
MARGIN = 1.0


def embedding_net():
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 8))


def centroid_probe(model, x, y):
    with torch.no_grad():
        z = model(x)
    half = len(x) // 2
    centroids = torch.stack([z[:half][y[:half] == c].mean(0) for c in range(10)])
    predicted = torch.cdist(z[half:], centroids).argmin(1)
    return (predicted == y[half:]).float().mean().item()


def contrastive_loss(z, labels, fixed):
    distance = torch.cdist(z, z)
    same = labels[:, None] == labels[None, :]
    upper = torch.triu(torch.ones_like(same), diagonal=1)
    positive = (same & upper).nonzero()
    negative = (~same & upper).nonzero()
    negative_distance = distance[negative[:, 0], negative[:, 1]].detach()
    if fixed:
        chosen = negative_distance.argsort()[:len(positive)]
    else:                     # BUG: the farthest negative pairs kept as the "hardest"
        chosen = negative_distance.argsort()[-len(positive):]
    negative = negative[chosen]
    d_positive = distance[positive[:, 0], positive[:, 1]]
    d_negative = distance[negative[:, 0], negative[:, 1]]
    losses = torch.cat([d_positive ** 2, torch.relu(MARGIN - d_negative) ** 2])
    return losses.mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = embedding_net()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = contrastive_loss(model(xb), yb, fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.probe_accuracy = round(centroid_probe(model, x, y), 3)
    return mon
