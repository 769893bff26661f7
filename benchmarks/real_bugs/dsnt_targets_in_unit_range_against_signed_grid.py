"""Keypoint regression through a DSNT layer (the expectation of a flat softmax over a grid of
normalised coordinates (2 i + 1) / W - 1, in (-1, 1)) trained against labels normalised
to [0, 1] (x / W). The two conventions disagree: a label of 0.25 (a keypoint a quarter of
the way across) asks for the probability mass at five eighths of the way across, so the
network has to learn to draw each keypoint's mass at a position-dependent offset from the
keypoint, half way toward the right and bottom edges, instead of on it. A fully
convolutional network does that only roughly; the loss falls and nothing errors.

Reported: "Expected ground truth labels range unclear" -
https://github.com/ashwhall/dsnt/issues/6 (the repository's Gaussian supervision expects
coordinates in [0, 1] while ``dsnt_x``/``dsnt_y`` range over [-1, 1], "so, what range
should I pick for my labels?"; the author: "I used [0, 1] for my labels, but as the dsnt
layer produces predictions in [-1, 1], I modify the outputs of the dsnt layer"; the PyTorch
package dsntnn's usage notes normalise the targets to (-1, 1), the range the layer always
outputs). Here: 20x20 synthetic upper bodies
(benchmarks/real_bugs/_keypoints.py), a small dilated fully convolutional network, a DSNT
head, a Euclidean loss. Fix: labels on the grid's own convention, (2 x + 1) / W - 1
(decoded back the same way).

Measured (300 Adam steps, batch 32, 2,000 training figures, 500 held out): held-out mean
keypoint error 0.75 pixels for the bug against 0.19 for the fixed twin at seed 0 (within
1 pixel: 0.77 against 1.00); seeds shifted by 1000, 0.73 against 0.24 (0.79
against 0.99).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._keypoints import SIZE, HeatmapNet, figures, index_batches
from benchmarks.real_bugs._pose import mean_error, pck

TITLE = "Expected ground truth labels range unclear"
LINK = "https://github.com/ashwhall/dsnt/issues/6"
EXPECTED = ("COORDINATE_TARGETS_ON_OTHER_CONVENTION",)
STEPS = 300
BATCH = 32
TRAIN, HELD_OUT = 2000, 500
LR = 3e-3


def dsnt(scores):
    """(N, K, H, W) -> (N, K, 2) in (-1, 1): the expectation of a flat softmax over the
    grid (2 i + 1) / W - 1 (the DSNT layer's coordinates)."""
    n, k, h, w = scores.shape
    p = F.softmax(scores.flatten(2), dim=-1).view(n, k, h, w)
    grid = (2 * torch.arange(w, dtype=torch.float32) + 1) / w - 1
    return torch.stack([(p.sum(2) * grid).sum(-1), (p.sum(3) * grid).sum(-1)], -1)


def encode(points, fixed):
    if fixed:
        return (2 * points + 1) / SIZE - 1      # the DSNT grid's own (-1, 1) coordinates
    return points / SIZE                        # BUG: labels in [0, 1]


def decode(coords, fixed):
    if fixed:
        return ((coords + 1) * SIZE - 1) / 2
    return coords * SIZE


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, points = figures(TRAIN + HELD_OUT, seed=0)
    model = HeatmapNet(5)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, BATCH, seed=0):
            optimizer.zero_grad()
            coords = dsnt(model(images[index]))
            loss = (coords - encode(points[index], fixed)).norm(dim=-1).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        found = decode(dsnt(model(images[TRAIN:])), fixed)
    mon.held_out_error_pixels = mean_error(found, points[TRAIN:])
    mon.held_out_pck = pck(found, points[TRAIN:])
    mon.held_out_pck_1px = pck(found, points[TRAIN:], 1.0)
    return mon
