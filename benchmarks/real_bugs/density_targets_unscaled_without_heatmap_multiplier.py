"""Density-map regression on raw density values: each head's Gaussian sums to one over many
pixels, so the full-resolution target maps hold values of a few hundredths, and the mean
pixel MSE and its gradients are tiny. With SGD the network's map moves slowly and it ends
with counts about twice as far off as the same network trained on maps multiplied by a
constant (in the report, at full scale, the predictions stay all zero).

Reported: "How to deal with all zero prediction in density map regression?" -
https://github.com/asanakoy/kaggle_sea_lions_counting/issues/1 (the sea-lion counting
solution multiplies its density maps by a ``heatmap_multiplier``; the asker's density
regression predicts all zeros). Here 32 x 32 synthetic crowds with 0-20 heads, fixed-sigma
Gaussian density maps at full resolution, a small FCN without pooling, SGD with momentum,
pixel MSE. Fix: multiply the target maps by 100 (and divide the predicted map's sum by 100
to count).

Measured harm (300 held-out pictures, seed 0 and every seed + 1000): held-out count MAE 0.59
vs 0.39 heads per picture; seeds + 1000: 1.01 vs 0.52.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._density_maps import (CountNet, count_mae, crowds, density,
                                                index_batches)

TITLE = "How to deal with all zero prediction in density map regression?"
LINK = "https://github.com/asanakoy/kaggle_sea_lions_counting/issues/1"
EXPECTED = ("TARGETS_UNSCALED",)
STEPS = 300
MULTIPLIER = 100.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    seed = int(torch.randint(10 ** 6, ()))
    x, points, counts, sigmas = crowds(600, seed)
    xt, _, ct, _ = crowds(300, seed + 1)
    scale = MULTIPLIER if fixed else 1.0      # BUG when not fixed: raw density values
    y = density(points, sigmas, scale=scale)
    model = CountNet(stride=1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, 16, seed):
            optimizer.zero_grad()
            loss = F.mse_loss(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_count_mae = count_mae(model, xt, ct, divide=scale)
    return mon
