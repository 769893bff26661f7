"""A CenterNet-style detector's target heatmap puts each object's Gaussian at the exact,
fractional centre on the output grid. CenterNet's penalty-reduced focal loss counts a
pixel as a positive only where the target equals 1; a Gaussian centred between pixels
peaks below 1 on every pixel (between 0.78 and 1 here, never 1 itself), so there are no
positives at all: the loss divides by max(positives, 1) and is the negatives' term alone,
which pushes every prediction towards 0 (weighted less near the objects, but never pulled
up). The predicted heatmap sinks to small values everywhere, the loss goes to ~0, and at
a detection threshold nothing is found.

Reported: "Focal loss in the paper" - https://github.com/xingyizhou/CenterNet/issues/18
(reimplementing CenterNet: "In my code it's often the case that no pixel has a value of 1
since the center of an object often falls in between pixels ... when training my
implementation, the predicted heatmap quickly only returns zeros"; the author: "We take
the floor of the pixel coordinate before generating the Gaussian. No peak will fall
between pixels."). Here: 16x16 images (rendered at 64x64 and averaged down, so boxes sit
at quarter-pixel positions) holding one bright rectangle, a small fully convolutional
network predicting an 8x8 centre heatmap (stride 2, output bias at CenterNet's prior of
0.1), the penalty-reduced focal loss (alpha 2, beta 4), Gaussians of sigma 1 heatmap
pixel. Fix: floor the centre before drawing the Gaussian.

Measured (300 Adam steps, batch 32, 2,000 training scenes, 500 held out; a detection is
the heatmap's maximum above CenterNet's 0.3 threshold within one heatmap pixel of the
floored centre): seed 0, 0.00 of the held-out objects detected by the bug against 1.00 by
the fixed twin (mean heatmap peak 0.000 against 0.90; the bug's logits sit near -10
everywhere, where the loss's probability clamp at 1e-4 stops their gradient); seeds
shifted by 1000: 0.00 against 1.00 (peak 0.000 against 0.93). The few training images
whose centre lands exactly on a pixel (about 1 in 256) are the bug's only positives.
"""
import math

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._det159 import batches

TITLE = "Focal loss in the paper"
LINK = "https://github.com/xingyizhou/CenterNet/issues/18"
EXPECTED = ("HEATMAP_TARGET_HAS_NO_POSITIVES",)
STEPS = 300
TRAIN, HELD_OUT = 2000, 500
FINE, SIZE, OUT = 64, 16, 8      # render size, image size, heatmap size
SIGMA = 1.0                      # Gaussian width in heatmap pixels
THRESHOLD = 0.3                  # CenterNet's default score threshold for a detection
PRIOR = 0.1                      # CenterNet initialises the heatmap bias to -2.19


def centre_scenes(n, rng):
    """``n`` noisy (1, 16, 16) images with one bright rectangle at quarter-pixel precision,
    and its centre in heatmap pixels (x, y)."""
    fine = np.zeros((n, 1, FINE, FINE), np.float32)
    centres = np.zeros((n, 2), np.float32)
    for i in range(n):
        w, h = rng.integers(12, 37, 2)
        x1, y1 = rng.integers(0, FINE - w + 1), rng.integers(0, FINE - h + 1)
        fine[i, 0, y1:y1 + h, x1:x1 + w] = 1.0
        centres[i] = [(x1 + w / 2) / (FINE / OUT), (y1 + h / 2) / (FINE / OUT)]
    images = F.avg_pool2d(torch.from_numpy(fine), FINE // SIZE)
    images = images + 0.15 * torch.from_numpy(rng.standard_normal(images.shape)).float()
    return images, torch.from_numpy(centres)


def heatmaps(centres):
    """(B, 1, 8, 8) Gaussian targets around the given centres (heatmap pixel units; a
    pixel's own coordinate is its index)."""
    grid = torch.arange(OUT).float()
    dx = (grid[None, :] - centres[:, :1]) ** 2          # (B, OUT) over columns
    dy = (grid[None, :] - centres[:, 1:]) ** 2          # (B, OUT) over rows
    return torch.exp(-(dy[:, :, None] + dx[:, None, :]) / (2 * SIGMA ** 2))[:, None]


def focal(logits, target):
    """CenterNet's penalty-reduced focal loss: positives where the target is exactly 1."""
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    positive = target.eq(1).float()
    negative = 1 - positive
    pos = (torch.log(p) * (1 - p) ** 2 * positive).sum()
    neg = (torch.log(1 - p) * p ** 2 * (1 - target) ** 4 * negative).sum()
    return -(pos + neg) / positive.sum().clamp(min=1)


def centre_net():
    net = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
                        nn.Conv2d(32, 32, 3, padding=2, dilation=2), nn.ReLU(),
                        nn.Conv2d(32, 1, 1))
    nn.init.constant_(net[-1].bias, -math.log((1 - PRIOR) / PRIOR))
    return net


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, centres = centre_scenes(TRAIN + HELD_OUT, np.random.default_rng(0))
    model = centre_net()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(TRAIN, steps):
            drawn = centres[index].floor() if fixed else centres[index]
            # BUG (fixed=False): the Gaussian at the fractional centre never reaches 1
            loss = focal(model(images[index]), heatmaps(drawn))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        scores = torch.sigmoid(model(images[TRAIN:]))[:, 0].flatten(1)
    peak, where = scores.max(1)
    row, col = where // OUT, where % OUT
    truth = centres[TRAIN:].floor()
    near = ((col - truth[:, 0]).abs() <= 1) & ((row - truth[:, 1]).abs() <= 1)
    mon.held_out_peak_near_centre = round(float(near.float().mean()), 3)
    mon.held_out_detected = round(float((near & (peak > THRESHOLD)).float().mean()), 3)
    mon.held_out_peak_score = round(float(peak.mean()), 3)
    return mon
