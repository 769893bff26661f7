"""Batch-hard triplet loss whose hardest NEGATIVE is read through ``dist[i][1 - mask[i]]``,
where ``mask[i]`` marks the anchor's own identity. The subtraction turns the 0/1 mask into
an integer tensor, and an integer tensor indexes by POSITION: ``1 - mask[i]`` is 0 for
every same-identity column and 1 for every other one, so the "negatives" are just
``dist[i][0]`` and ``dist[i][1]``, repeated - the distances to the first two images of
the batch, one of them often of the anchor's own identity. The loss then pushes every
anchor away from those two images and pulls its hardest positive in; the real negatives
are never looked at, the gap between the hardest positive and the "hardest negative"
closes, and identities are never separated.

Reported: "An Issues for triplet-loss in open-reid" - https://github.com/Cysu/open-reid/issues/24
(training Market-1501 with ``--loss triplet --num-instances 4`` gave "only 2.6% top1
accuracy ... finally the difference of hard-negative and hard-positive Almost goes to
zero"; the reporter solved it by changing ``dist_an.append(dist[i][1-mask[i]].min())`` to
``dist_an.append(dist[i][mask[i] == 0].min())`` "like latest version does"). The report
does not say what ``1 - mask[i]`` became under its PyTorch; the reproduction takes the
reading the symptom fits: the subtraction yields integers, read as positions (PyTorch now
refuses ``1 - bool``, so it is written on the mask's integer copy). Here a synthetic
re-identification set (120 training identities, 60 unseen test identities, a query and
a gallery), an MLP embedder of 32 numbers, P x K batches of 16 identities x 4 images,
open-reid's hinge (``MarginRankingLoss``, margin 0.5), Adam at 3e-3.

Fix: select the negatives with the boolean complement, ``dist[i][mask[i] == 0]``.

Measured (rank-1 on the unseen identities' query against the gallery, cosine ranking;
mAP in ``held_out_map``): rank-1 0.750 with the bug, 0.883 fixed (mAP 0.653 vs 0.794);
seeds + 1000: 0.633 vs 0.850 (mAP 0.575 vs 0.728).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._reid351 import pk_batches, reid_data, retrieval_scores

TITLE = "An Issues for triplet-loss in open-reid"
LINK = "https://github.com/Cysu/open-reid/issues/24"
EXPECTED = ("MASK_USED_AS_INDEX",)
STEPS = 300
MARGIN = 0.5
P, K = 16, 4


def embedder():
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                         nn.Linear(128, 32))


def triplet_loss(inputs, targets, fixed):
    """open-reid's TripletLoss (reid/loss/triplet.py); its per-anchor loop
    ``dist[i][index[i]]`` is written here for all anchors at once (``dist.gather``)."""
    n = inputs.size(0)
    dist = torch.pow(inputs, 2).sum(1, keepdim=True).expand(n, n)
    dist = dist + dist.t()
    dist = dist.addmm(inputs, inputs.t(), beta=1, alpha=-2)
    dist = dist.clamp(min=1e-12).sqrt()
    mask = targets.expand(n, n).eq(targets.expand(n, n).t())
    dist_ap = dist.masked_fill(~mask, float("-inf")).max(1).values    # dist[i][mask[i]].max()
    if fixed:
        dist_an = dist.masked_fill(mask, float("inf")).min(1).values  # dist[i][mask[i] == 0]
    else:
        dist_an = dist.gather(1, 1 - mask.long()).min(1).values     # BUG: dist[i][1 - mask[i]]
    y = torch.ones_like(dist_an)
    return nn.functional.margin_ranking_loss(dist_an, dist_ap, y, margin=MARGIN)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, query_x, query_y, gallery_x, gallery_y = reid_data(0)
    model = embedder()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in pk_batches(y, P, K, steps, rng):
            loss = triplet_loss(model(x[rows]), y[rows], fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        rank1, mean_ap = retrieval_scores(model(query_x), query_y, model(gallery_x), gallery_y)
    mon.held_out_accuracy = rank1
    mon.held_out_map = mean_ap
    return mon
