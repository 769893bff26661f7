"""A BNNeck re-identification model ranked by "cosine distance" ``1 - q_feat @ g_feat.T``
on features that were never L2-normalised. The evaluator normalises every feature
before the distance; the ranking script skipped that step, so the score is a raw dot
product: a gallery image with a long feature vector scores high against every query
it roughly points along, and the ranking follows feature LENGTH as much as direction.
Training is untouched - the loss curves, the ID accuracy and the evaluator's numbers
are all fine - only the query/gallery ranking the script reports is worse.

Reported: "No normalization in demo/visualize_result.py" - https://github.com/JDAI-CV/fast-reid/issues/733
("there is following code snippet ... ``# compute cosine distance`` ``distmat = 1 -
torch.mm(q_feat, g_feat.t())`` I think there should be a nomalization before torch.mm
like "postprocess" function in demo/demo.py ... The resulting jpg outputs also show the
similarities over 1"; a second user: "I added ``feats = F.normalize(feats)`` ... and it
seems like working fine"). Here a synthetic re-identification set (120 training
identities, 60 unseen test identities, a query and a gallery), an MLP backbone with a
BNNeck head as in reid-strong-baseline / fast-reid's bag of tricks: batch-hard triplet
loss (margin 0.3) on the feature before the BatchNorm, cross-entropy ID loss on the
classifier after it (BN bias frozen, bias-free classifier), P x K batches of 16 x 4,
Adam; the test feature is the one after the BatchNorm (``NECK_FEAT: after``).

Fix: ``F.normalize`` the query and gallery features before ``1 - q_feat @ g_feat.T``.

Measured (rank-1 of the unseen identities' queries against the gallery; mAP in
``held_out_map``): rank-1 0.533 with the bug, 0.733 fixed (mAP 0.447 vs 0.530); seeds +
1000: 0.400 vs 0.567 (mAP 0.348 vs 0.406).

No finding code names a missing L2 normalisation before a retrieval distance; EXPECTED is
the nearest, EMBEDDINGS_NORMALIZED_OVER_BATCH (the per-row normalisation of embeddings
before their similarity done wrong).
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._reid351 import (TRAIN_IDS, pk_batches, reid_data,
                                           retrieval_scores)

TITLE = "No normalization in demo/visualize_result.py"
LINK = "https://github.com/JDAI-CV/fast-reid/issues/733"
EXPECTED = ("EMBEDDINGS_NORMALIZED_OVER_BATCH",)
STEPS = 300
MARGIN = 0.3
P, K = 16, 4


class BNNeckModel(nn.Module):
    def __init__(self, classes=TRAIN_IDS, dim=32):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128),
                                      nn.ReLU(), nn.Linear(128, dim))
        self.bottleneck = nn.BatchNorm1d(dim)
        self.bottleneck.bias.requires_grad_(False)
        self.classifier = nn.Linear(dim, classes, bias=False)

    def forward(self, x):
        global_feat = self.backbone(x)
        feat = self.bottleneck(global_feat)
        if self.training:
            return self.classifier(feat), global_feat
        return feat                                  # NECK_FEAT "after"


def batch_hard_triplet(features, labels):
    dist = torch.cdist(features, features)
    same = labels[:, None] == labels[None, :]
    hardest_positive = dist.masked_fill(~same, float("-inf")).max(1).values
    hardest_negative = dist.masked_fill(same, float("inf")).min(1).values
    return F.relu(hardest_positive - hardest_negative + MARGIN).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, query_x, query_y, gallery_x, gallery_y = reid_data(0)
    model = BNNeckModel()
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in pk_batches(y, P, K, steps, rng):
            scores, global_feat = model(x[rows])
            loss = F.cross_entropy(scores, y[rows]) + batch_hard_triplet(global_feat, y[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        q_feat, g_feat = model(query_x), model(gallery_x)
        if fixed:
            q_feat, g_feat = F.normalize(q_feat, dim=1), F.normalize(g_feat, dim=1)
        distmat = 1 - torch.mm(q_feat, g_feat.t())   # BUG (unfixed): "cosine" of raw features
        rank1, mean_ap = retrieval_scores(q_feat, query_y, g_feat, gallery_y, distance=distmat)
    mon.held_out_accuracy = rank1
    mon.held_out_map = mean_ap
    return mon
