"""Part-based re-identification trainer whose part losses are computed and thrown away:
inside the loop over the body parts the line reads ``loss + loss_tri`` where
``loss = loss + loss_tri`` (``loss += loss_tri``) is meant. The expression is evaluated and
its result discarded, so only the global feature's loss is back-propagated. Every part
branch runs its forward pass each step, its triplet loss is printed nowhere, and its
weights keep their random initialisation - yet at test time the part features are
concatenated with the global one to rank the gallery, so a third of every distance is
random-feature noise.

Reported: "There might be a bug in line 195 of SSG-master/reid/trainers.py" - https://github.com/SHI-Labs/Self-Similarity-Grouping/issues/28
("To my understanding, should it be "loss += loss_tri" instead of "loss + loss_tri"?";
in ``FinedTrainer._forward`` the global feature's losses are summed into ``loss``, then
``for i, inputs in enumerate(inputs_p): ... loss_tri, _ = self.criterions[0](outputs[0][i+1],
pids, epoch); loss + loss_tri``). Here a synthetic re-identification set (120 training
identities, 60 unseen test identities, a query and a gallery), a global MLP branch on all
64 inputs (32 numbers out) and two part branches on the upper and lower 32 inputs (16
numbers each); each step a P x K batch for the global branch and one for each part (SSG
feeds each part its own loader; its part pseudo-labels are the true identities here),
batch-hard triplet losses with margin 0.5, Adam. The gallery is ranked by the
concatenation of the three L2-normalised features, as SSG evaluates.

Fix: ``loss = loss + loss_tri`` inside the part loop.

Measured (rank-1 on the unseen identities' query against the gallery; mAP in
``held_out_map``): rank-1 0.717 with the bug, 0.900 fixed (mAP 0.396 vs 0.810); seeds +
1000: 0.583 vs 0.867 (mAP 0.314 vs 0.727).
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._reid351 import pk_batches, reid_data, retrieval_scores

TITLE = "There might be a bug in line 195 of SSG-master/reid/trainers.py"
LINK = "https://github.com/SHI-Labs/Self-Similarity-Grouping/issues/28"
EXPECTED = ("LOSSES_NOT_BACKPROPAGATED", "NO_GRADIENT")
STEPS = 300
MARGIN = 0.5
P, K = 16, 4


class PartModel(nn.Module):
    """A global branch and two part (stripe) branches; ``forward`` returns all three."""

    def __init__(self):
        super().__init__()
        self.global_branch = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 32))
        self.parts = nn.ModuleList(
            nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16)) for _ in range(2))

    def forward(self, x):
        return [self.global_branch(x), self.parts[0](x[:, :32]), self.parts[1](x[:, 32:])]

    def features(self, x):
        return torch.cat([F.normalize(f, dim=1) for f in self(x)], dim=1)


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
    model = PartModel()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    global_batches = pk_batches(y, P, K, steps, rng)
    part_batches = [pk_batches(y, P, K, steps, rng) for _ in model.parts]
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in global_batches:
            outputs = model(x[rows])
            loss = batch_hard_triplet(outputs[0], y[rows])
            for i, loader in enumerate(part_batches):
                part_rows = next(loader)
                outputs = model(x[part_rows])
                loss_tri = batch_hard_triplet(outputs[i + 1], y[part_rows])
                if fixed:
                    loss = loss + loss_tri
                else:
                    loss + loss_tri            # BUG: the sum is computed and discarded
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        rank1, mean_ap = retrieval_scores(model.features(query_x), query_y,
                                          model.features(gallery_x), gallery_y)
    mon.held_out_accuracy = rank1
    mon.held_out_map = mean_ap
    return mon
