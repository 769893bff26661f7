"""A k-nearest-neighbour outlier filter whose neighbour search computes squared distances
with the expansion ``|a|^2 + |b|^2 - 2 a.b``, on clouds given in world coordinates about
1,000 units from the origin. In float32, ``|a|^2`` is about 2e6 there and carries about 0.1
of rounding error, while the squared distance to a point's nearest neighbour is about
0.003: the expansion cancels to noise (a third of the "distances" come out exactly 0, 3%
negative), and the k "nearest" points of each point are nearly random points of its cloud
(19% of the true neighbours found). The network still trains - it reads each point's
offsets to the points it was given, which are exact - but those offsets no longer say
whether a point sits alone or on a stroke. Nothing errors and no value is out of range.

Reported: "Incorrect square distance function" -
https://github.com/yanx27/Pointnet_Pointnet2_pytorch/issues/151 (``square_distance`` in
``pointnet2_utils.py`` builds the distance matrix as ``-2 * src @ dst^T + |src|^2 +
|dst|^2``; on the reporter's voxel-downsampled data it gave negative squared distances and
the wrong neighbours, the point itself not coming first; the suggested correction computes
the differences, ``sum((src[:, :, None] - dst[:, None]) ** 2, -1)``; reported again as
#163). Here each cloud is a digit drawn as 48 points spread over its inked pixels plus 16
outliers scattered uniformly over the image (benchmarks/real_bugs/_pts.py), placed 500 to
1,500 units from the origin on each axis; an EdgeConv-style layer (k = 4 neighbours, an MLP
on each neighbour's offset, max over neighbours) labels every point outlier or not; Adam
2e-3. The network reads offsets only, so it needs no centring. Fix: neighbours by the
squared differences.

Measured (held-out clouds from the last 297 digits; F1 of the outlier class, and per-point
accuracy where 0.75 is labelling every point inlier): seed 0, F1 0.39 for the bug
against 0.55 for the fixed twin (accuracy 0.786 against 0.832); seeds shifted by 1000, F1
0.38 against 0.57 (0.785 against 0.833).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._pts import HELD_OUT, digit_clouds, seeded_generator

TITLE = "Incorrect square distance function"
LINK = "https://github.com/yanx27/Pointnet_Pointnet2_pytorch/issues/151"
EXPECTED = ("KNN_DISTANCE_CANCELLATION",)
STEPS = 400
INLIERS, OUTLIERS, NEIGHBOURS, BATCH = 48, 16, 4, 32


def squared_distances(points, expanded):
    """(B, N, N) squared distances between the points of each cloud (B, N, 2)."""
    if expanded:      # BUG: |a|^2 + |b|^2 - 2 a.b cancels in float32 far from the origin
        norms = (points ** 2).sum(-1)
        return norms[:, :, None] + norms[:, None, :] - 2 * points @ points.transpose(1, 2)
    return ((points[:, :, None, :] - points[:, None, :, :]) ** 2).sum(-1)


class OutlierFilter(nn.Module):
    def __init__(self, expanded):
        super().__init__()
        self.expanded = expanded
        self.edge = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.out = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, points):                                   # (B, N, 2), world coords
        with torch.no_grad():
            distances = squared_distances(points, self.expanded)
            neighbours = distances.topk(NEIGHBOURS + 1, dim=2, largest=False)[1][:, :, 1:]
        picked = torch.gather(points[:, None].expand(-1, points.shape[1], -1, -1), 2,
                              neighbours[..., None].expand(-1, -1, -1, 2))   # (B, N, k, 2)
        offsets = 7 * (picked - points[:, :, None, :])           # exact; in pixel units
        return self.out(self.edge(offsets).max(dim=2)[0]).squeeze(-1)       # (B, N) logits


def noisy_clouds(generator):
    """(clouds (N, 64, 2) in world coordinates, labels (N, 64): 1 for an outlier), the
    points of each cloud in a random order."""
    inliers, _ = digit_clouds(INLIERS, generator, spread=True)
    outliers = 1.2 * torch.rand(len(inliers), OUTLIERS, 2, generator=generator) - 0.6
    clouds = torch.cat([inliers, outliers], 1)
    labels = torch.cat([torch.zeros(len(inliers), INLIERS),
                        torch.ones(len(inliers), OUTLIERS)], 1)
    order = torch.argsort(torch.rand(labels.shape, generator=generator), 1)
    clouds = clouds.gather(1, order[..., None].expand(-1, -1, 2))
    placed = clouds + 500 + 1000 * torch.rand(len(clouds), 1, 2, generator=generator)
    return placed, labels.gather(1, order)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = seeded_generator()
    clouds, labels = noisy_clouds(generator)
    train = len(clouds) - HELD_OUT
    model = OutlierFilter(expanded=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(0, train, (BATCH,), generator=generator)
            loss = F.binary_cross_entropy_with_logits(model(clouds[index]), labels[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        flagged = model(clouds[train:]) > 0
    truth = labels[train:] > 0.5
    mon.held_out_accuracy = (flagged == truth).float().mean().item()
    mon.held_out_outlier_f1 = (2 * (flagged & truth).sum() /
                               (flagged.sum() + truth.sum())).item()
    return mon
