"""Integral (soft-argmax) keypoint regression whose heatmaps are squashed into [0, 1] by a
sigmoid and then handed to a spatial soft-argmax at temperature 1. The soft-argmax
softmaxes its input again: on values in [0, 1] the brightest pixel can outweigh the
darkest by at most e = 2.7 times, so over a 20x20 map the distribution stays nearly flat
and its expectation sits near the map's centre whatever the network draws. The network
can only tilt a near-uniform distribution, so keypoints near the border are never reached;
the coordinate loss falls to a floor and nothing errors.

Reported: "Unexpected spatial_soft_argmax2d output" -
https://github.com/kornia/kornia/issues/2498 (a heatmap in [0, 1] with its blob at about
(18, 31) of a 64x64 map came out of ``spatial_soft_argmax2d`` at (31, 31), almost the
midpoint; kornia's own tests were fixed the same way in
https://github.com/kornia/kornia/pull/544, "a higher input element value is required to
get crisp coordinate results, since spatial_soft_argmax2d softmaxes the input", and the
function takes a ``temperature`` that multiplies its input for that). Here: 20x20
synthetic upper bodies (head, shoulders, hands; benchmarks/real_bugs/_keypoints.py), a
small dilated fully convolutional network, sigmoid heatmaps, an L1 loss on pixel
coordinates. Fix: a temperature of 30 on the [0, 1] heatmap before the soft-argmax.

Measured (300 Adam steps, batch 32, 2,000 training figures, 500 held out): held-out mean
keypoint error 2.56 pixels for the bug against 0.12 for the fixed twin at seed 0 (PCK
within 2 pixels 0.51 against 1.00); seeds shifted by 1000, 2.58 against 0.15 (PCK 0.51
against 1.00).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._keypoints import HeatmapNet, figures, index_batches
from benchmarks.real_bugs._pose import mean_error, pck, soft_argmax

TITLE = "Unexpected spatial_soft_argmax2d output"
LINK = "https://github.com/kornia/kornia/issues/2498"
EXPECTED = ("SQUASHED_LOGITS", "SOFT_ARGMAX_TEMPERATURE_TOO_LOW")
STEPS = 300
BATCH = 32
TRAIN, HELD_OUT = 2000, 500
LR = 3e-3
TEMPERATURE = 30.0       # the fix: sharpen the [0, 1] heatmap before the spatial softmax


def locate(model, images, fixed):
    heatmap = torch.sigmoid(model(images))            # a heatmap in [0, 1], as in the report
    if fixed:
        return soft_argmax(heatmap, TEMPERATURE)
    return soft_argmax(heatmap)                       # BUG: temperature 1 on values in [0, 1]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, points = figures(TRAIN + HELD_OUT, seed=0)
    model = HeatmapNet(5)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, BATCH, seed=0):
            optimizer.zero_grad()
            found = locate(model, images[index], fixed)
            loss = torch.nn.functional.l1_loss(found, points[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        found = locate(model, images[TRAIN:], fixed)
    mon.held_out_error_pixels = mean_error(found, points[TRAIN:])
    mon.held_out_pck = pck(found, points[TRAIN:])
    return mon
