"""A ReLU after the density head "because a density is never negative": most target pixels
are zero, the head is pushed below zero there, and once a picture's pre-activations are all
negative the ReLU passes neither a map nor a gradient - the head dies and predicts zero
people for whole pictures.

Reported: "Sometimes the initial solution predicts only zeros (due to RELU activation)" -
https://github.com/jvargasmu/population_estimation/issues/68 ("no gradients emerge. We
should maybe change this to a softRelu/Softplus"). Here 32 x 32 synthetic crowds with 0-20
heads, fixed-sigma Gaussian density maps sum-pooled to the network's 8 x 8 map (stride 4),
Adam, pixel MSE on targets multiplied by 100. Fix: Softplus instead of the final ReLU.

Measured harm (300 held-out pictures, seed 0 and every seed + 1000): held-out count MAE
10.12 vs 0.50 heads per picture (the bug run predicts about zero for every picture, mean
count 10); seeds + 1000: 10.68 vs 0.85.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._density_maps import (CountNet, count_mae, crowds, density,
                                                index_batches, sum_pool)

TITLE = "Sometimes the initial solution predicts only zeros (due to RELU activation)"
LINK = "https://github.com/jvargasmu/population_estimation/issues/68"
EXPECTED = ("DEAD_RELU",)
STEPS = 300
STRIDE = 4
MULTIPLIER = 100.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    seed = int(torch.randint(10 ** 6, ()))
    x, points, counts, sigmas = crowds(600, seed)
    xt, _, ct, _ = crowds(300, seed + 1)
    y = sum_pool(density(points, sigmas, scale=MULTIPLIER), STRIDE)
    model = CountNet(stride=STRIDE)
    # BUG when not fixed: ReLU on the density head
    model.net.append(nn.Softplus() if fixed else nn.ReLU())
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, 16, seed):
            optimizer.zero_grad()
            loss = F.mse_loss(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_count_mae = count_mae(model, xt, ct, divide=MULTIPLIER)
    return mon
