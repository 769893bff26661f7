"""Geometry-adaptive ground-truth density maps built with peak-1 Gaussians (exp(-r^2 / 2
sigma^2) without dividing by the kernel's sum): a head then weighs 2 pi sigma^2 instead of
one, and as sigma follows the head size (near heads big, far heads small) the map's sum no
longer says how many heads there are - the network learns a "count" that mixes the number
of heads with their size.

Reported: "The standard deviation of the Gaussian kernel" -
https://github.com/cvlab-stonybrook/LearningToCountEverything/issues/20 (the maintainer: "The
Gaussian kernel is normalized by its sum, so for any standard deviation, the kernel sums to
one. Thus the standard deviation does not affect the count of the density map"). Here 32 x
32 synthetic crowds with 0-20 heads whose size (and kernel sigma, 0.8-2.4 px) varies per
picture, maps sum-pooled to the network's 8 x 8 map (stride 4), Adam, pixel MSE; counts read
as the map's sum. Fix: normalise every kernel to unit sum.

Measured harm (300 held-out pictures, seed 0 and every seed + 1000): held-out count MAE
159.3 vs 0.99 heads per picture (counts read as the map's sum, as the asker does); seeds +
1000: 170.8 vs 1.29.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._density_maps import (CountNet, count_mae, crowds, density,
                                                index_batches, sum_pool)

TITLE = "The standard deviation of the Gaussian kernel"
LINK = "https://github.com/cvlab-stonybrook/LearningToCountEverything/issues/20"
EXPECTED = ("TARGETS_UNSCALED",)
STEPS = 300
STRIDE = 4


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    seed = int(torch.randint(10 ** 6, ()))
    x, points, counts, sigmas = crowds(600, seed, perspective=True)
    xt, _, ct, _ = crowds(300, seed + 1, perspective=True)
    y = sum_pool(density(points, sigmas, normalise=fixed), STRIDE)   # BUG: peak-1 kernels
    model = CountNet(stride=STRIDE)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, 16, seed):
            optimizer.zero_grad()
            loss = F.mse_loss(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_count_mae = count_mae(model, xt, ct)
    return mon
