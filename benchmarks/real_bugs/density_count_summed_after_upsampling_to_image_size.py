"""A density-map counter trained correctly (its 1/4-resolution map against a sum-pooled
ground-truth map) whose evaluation first upsamples the predicted map to the picture's size,
as one does to overlay it on the image, and counts by summing that upsampled map. Bilinear
upsampling keeps each pixel's value, not its mass: a map made STRIDE times wider and
taller sums to about STRIDE ** 2 times the count, so every held-out count is inflated
while training, and its loss curve, look fine.

Reported: "Model consistently predicts roughly double the gt count" -
https://github.com/Yiming-M/CLIP-EBC/issues/11 (the maintainer: "it's the upsampling that
changes the total count value"; obtain the count from the originally produced density
map). Here the synthetic crowd pictures of ``_density_maps`` (32x32, 0-20 heads), the
small fully convolutional CountNet with a stride-4 density map, MSE against the
sum-pooled ground truth, Adam (lr 1e-3), 300 steps of 16 pictures; counts on 300 held-out
pictures.

Fix: count from the map the network produced (sum it before any resizing), nothing else
changed.

Measured (held-out count MAE, heads per picture): 164.98 with the bug, 0.87 fixed;
seeds + 1000: 141.93 vs 0.44.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._density_maps import CountNet, crowds, density, index_batches, sum_pool

TITLE = "Model consistently predicts roughly double the gt count"
LINK = "https://github.com/Yiming-M/CLIP-EBC/issues/11"
EXPECTED = ("VALIDATION_LOSS_MISSCALED",)
STEPS = 300
STRIDE = 4


@torch.no_grad()
def predicted_counts(model, images, fixed):
    model.eval()
    maps = model(images)
    if not fixed:                                 # BUG: the count of a resized map
        maps = F.interpolate(maps, scale_factor=STRIDE, mode="bilinear", align_corners=False)
    model.train()
    return maps.sum((1, 2, 3))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    seed = int(torch.randint(10 ** 6, ()))
    x, points, counts, sigmas = crowds(600, seed)
    xt, _, ct, _ = crowds(300, seed + 1)
    y = sum_pool(density(points, sigmas), STRIDE)
    model = CountNet(stride=STRIDE)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, 16, seed):
            optimizer.zero_grad()
            loss = F.mse_loss(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_count_mae = round(float((predicted_counts(model, xt, fixed) - ct)
                                         .abs().mean()), 2)
    return mon
