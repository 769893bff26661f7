"""Re-identification trained on "all" of a dataset (``COMBINEALL``: its training subset and
its test subset pooled) with the person ids kept as each subset numbered them. The test
subset counts its persons from 0 again, so its person 17 and the training subset's person
17 - two different people - become ONE identity: the classifier learns them as one class,
and the P x K sampler hands their images to the triplet loss as positives of each other.
Two thirds of the pooled persons are fused in pairs; every fused identity trains the
embedding to map two different people to one point, which is exactly what a retrieval
embedding must not do.

Reported: "Fix bug: COMBINEALL should add extra prefix to avoid pid conflictions" - https://github.com/JDAI-CV/fast-reid/pull/447
("For datasets like CUHK03, train set and test set have some common pids (exactly, 377
pids), but the person identities are totally different. When combining the subsets into a
larger one, extra prefix should be added to distinguish training samples from the testing
ones."; the maintainer: "Thanks! I ignored this problem."). Here a synthetic
re-identification set: 120 training persons plus a second subset of 80 other persons whose
ids also start at 0 (so they collide with training persons 0-79, as CUHK03's 377 of 767
do), pooled for training; the read-out is a query / gallery of 60 further persons never
trained on (the cross-dataset target). An MLP backbone with a BNNeck head, cross-entropy
ID loss plus batch-hard triplet loss (margin 0.3), P x K batches of 16 x 4, Adam.

Fix: give the second subset's ids a prefix (here: offset them past the training ids), so
the pooled set holds 200 identities, one per person.

Measured (rank-1 of the unseen persons' queries against the gallery, cosine ranking; mAP
in ``held_out_map``): rank-1 0.533 with the bug, 0.717 fixed (mAP 0.380 vs 0.629); seeds
+ 1000: 0.417 vs 0.650 (mAP 0.276 vs 0.485).

No finding code names two different persons pooled under one id; EXPECTED is the nearest,
CONFLICTING_LABELS_ON_IDENTICAL_INPUTS (labels that contradict what the inputs show -
there, one input with two labels; here, two people with one label).
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._reid351 import TRAIN_IDS, pk_batches, reid_data, retrieval_scores

TITLE = "Fix bug: COMBINEALL should add extra prefix to avoid pid conflictions"
LINK = "https://github.com/JDAI-CV/fast-reid/pull/447"
EXPECTED = ("CONFLICTING_LABELS_ON_IDENTICAL_INPUTS",)
STEPS = 300
MARGIN = 0.3
EXTRA_IDS = 80
P, K = 16, 4


class BNNeckModel(nn.Module):
    def __init__(self, classes, dim=32):
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
        return feat


def batch_hard_triplet(features, labels):
    dist = torch.cdist(features, features)
    same = labels[:, None] == labels[None, :]
    hardest_positive = dist.masked_fill(~same, float("-inf")).max(1).values
    hardest_negative = dist.masked_fill(same, float("inf")).min(1).values
    return F.relu(hardest_positive - hardest_negative + MARGIN).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, query_x, query_y, gallery_x, gallery_y, x_extra, y_extra = reid_data(
        0, extra_ids=EXTRA_IDS)
    if fixed:
        y_extra = y_extra + TRAIN_IDS          # the prefix: the subset's own id space
    x_all, y_all = torch.cat([x, x_extra]), torch.cat([y, y_extra])   # BUG unfixed: ids clash
    model = BNNeckModel(classes=len(torch.unique(y_all)))
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in pk_batches(y_all, P, K, steps, rng):
            scores, global_feat = model(x_all[rows])
            loss = F.cross_entropy(scores, y_all[rows]) + batch_hard_triplet(global_feat,
                                                                             y_all[rows])
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
