"""A heatmap pose network trained with a plain pixel-mean MSE against small Gaussian targets
(sigma 0.8 pixels on a 20x20 map: about 1% of each map is keypoint). An all-zero output
already scores a tiny loss, so the background's pull dominates the gradient: with SGD
and momentum every map settles flat near zero within the first 50 steps (the loss 0.0049
from there on) and the peaks never grow (mean peak 0.03 where the targets peak at 1). A
loss that falls to a small number and stays there looks like convergence; argmax of a flat
map is wherever noise puts it, and nothing errors.

Reported: "fine tuning issue" - https://github.com/tpfister/caffe-heatmap/issues/17
(fine-tuning a heatmap regressor on seven upper-body joints: the loss fell monotonically,
from 1.00 toward 0, while the accuracy dropped to zero after a few iterations; the answer:
"Check out the heatmap predictions. If everything converges to zero, you might need to
weight your foreground/background gradients so that they equal contribution to the
parameter update"). Here: 20x20 synthetic upper bodies (benchmarks/real_bugs/_keypoints.py),
a small dilated fully convolutional network, SGD (rate 0.05, momentum 0.9). Fix: weight
each pixel's squared error by 1 + 40 * target, so the keypoints' pixels count about as
much as the background.

Measured (300 steps, batch 32, 2,000 training figures, 500 held out): held-out mean argmax
error 3.25 pixels for the bug against 0.92 for the fixed twin at seed 0 (PCK within 2
pixels 0.35 against 0.87, mean map peak 0.03 against 0.80); seeds shifted by 1000, 5.14
against 0.62 (PCK 0.20 against 0.96, peak 0.03 against 0.83).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._keypoints import (HeatmapNet, argmax_points, figures, heatmaps,
                                             index_batches)
from benchmarks.real_bugs._pose import mean_error, pck

TITLE = "fine tuning issue"
LINK = "https://github.com/tpfister/caffe-heatmap/issues/17"
EXPECTED = ("RARE_POSITIVES_NEVER_PREDICTED", "HEATMAP_COLLAPSED_TO_BACKGROUND")
STEPS = 300
BATCH = 32
TRAIN, HELD_OUT = 2000, 500
LR, MOMENTUM = 0.05, 0.9
SIGMA = 0.8
FOREGROUND = 40.0      # the fix: a keypoint's pixels weigh 1 + 40 * target


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, points = figures(TRAIN + HELD_OUT, seed=0)
    model = HeatmapNet(5)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, BATCH, seed=0):
            target = heatmaps(points[index], SIGMA)
            optimizer.zero_grad()
            error = (model(images[index]) - target) ** 2
            if fixed:
                error = error * (1 + FOREGROUND * target)
            loss = error.mean()                 # BUG (fixed=False): background dominates
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        maps = model(images[TRAIN:])
    found = argmax_points(maps)
    mon.held_out_error_pixels = mean_error(found, points[TRAIN:])
    mon.held_out_pck = pck(found, points[TRAIN:])
    mon.held_out_peak = maps.flatten(2).amax(-1).mean().item()
    return mon
