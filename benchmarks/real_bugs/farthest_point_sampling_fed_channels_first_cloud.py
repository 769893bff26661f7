"""Farthest point sampling handed a cloud channels-first, (batch, coordinates, points),
where it reads (batch, points, coordinates). It then samples among the 2 coordinate ROWS as
if they were the points: index 0, index 1, and - every distance to the picked "points" now
being zero - index 0 again for every remaining pick. The indices are valid, so gathering
them from the cloud works: each downsampled cloud is its first two points and 30 copies of
the first. The classifier downstream trains on clouds that carry almost nothing of the
shape, and its loss stalls high; nothing errors.

Reported: "remove permute" - https://github.com/HaolinLiu97/PUGAN-pytorch/pull/51 (with
clouds in (B, N, C) layout the code permuted them before the FPS call; "I tried to output
the FPS result. It shows several valid index and most index are 0", and with the permute
removed the sampled cloud "keep[s] the shape of original point cloud"; merged by the
author). Here the digits drawn as 2-D clouds of 128 pixel positions
(benchmarks/real_bugs/_pts.py) are downsampled to 32 points by FPS, the points gathered from
the (B, N, 2) cloud, and a PointNet (shared per-point MLP, max over points) classifies them;
Adam 1e-3. Fix: pass the cloud to the FPS as (B, N, 2).

Measured (accuracy on the last 297 digits, each downsampled the same way; chance 0.10):
seed 0, 0.18 for the bug against 0.61 for the fixed twin; seeds shifted by 1000, 0.21
against 0.60.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._pts import (HELD_OUT, digit_clouds, farthest_point_sample,
                                       seeded_generator)

TITLE = "remove permute"
LINK = "https://github.com/HaolinLiu97/PUGAN-pytorch/pull/51"
EXPECTED = ("SAMPLED_INDICES_DEGENERATE",)
STEPS = 1500
POINTS, SAMPLED, BATCH = 128, 32, 32


def downsampled(clouds, fixed):
    """``SAMPLED`` points of each (B, POINTS, 2) cloud, picked by farthest point
    sampling."""
    if fixed:
        index = farthest_point_sample(clouds, SAMPLED)
    else:       # BUG: the sampler reads (B, 2, N) as two 128-dimensional "points"
        index = farthest_point_sample(clouds.permute(0, 2, 1), SAMPLED)
    return clouds.gather(1, index[..., None].expand(-1, -1, 2))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = seeded_generator()
    clouds, labels = digit_clouds(POINTS, generator)
    train = len(clouds) - HELD_OUT
    model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 128), nn.ReLU())
    head = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))
    net = nn.ModuleDict({"points": model, "head": head})
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)

    def classify(x):
        return head(model(x).max(dim=1)[0])

    with nd.watch(net, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(0, train, (BATCH,), generator=generator)
            logits = classify(downsampled(clouds[index], fixed))
            loss = F.cross_entropy(logits, labels[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = classify(downsampled(clouds[train:], fixed)).argmax(1)
    mon.held_out_accuracy = (predicted == labels[train:]).float().mean().item()
    return mon
