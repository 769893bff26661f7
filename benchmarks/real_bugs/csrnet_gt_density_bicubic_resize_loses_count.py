"""The ground-truth density map is brought down to the network's 1/8 output resolution with
a bicubic resize times 64 (CSRNet's ``cv2.resize(target, (w/8, h/8), INTER_CUBIC) * 64``):
an interpolating resize samples the map at a few points instead of summing each 8 x 8 block,
so the target maps no longer sum to the head counts (a head between sample points nearly
vanishes, one on a sample point counts up to several times) and the network learns counts
that are off by several heads per picture.

Reported: "About crowd count is inconsistent before and after processing of the density
map" - https://github.com/leeyeehoo/CSRNet-pytorch/issues/19 (the resized map's count times
64 is far from the original count, e.g. 9 * 64 != 640, so the ground truth trained on is not
the dataset's count). Here 32 x 32 synthetic crowds with 0-20 heads, fixed-sigma Gaussian
density maps, a small FCN whose density map is 4 x 4 (stride 8), Adam, pixel MSE. Fix:
sum-pool the density map (8 x 8 block sums, i.e. avg_pool * 64), which keeps every head's
mass.

Measured harm (300 held-out pictures, seed 0 and every seed + 1000): held-out count MAE 3.88
vs 0.75 heads per picture; seeds + 1000: 5.00 vs 0.80.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._density_maps import (CountNet, count_mae, crowds, density,
                                                index_batches, sum_pool)

TITLE = "About crowd count is inconsistent before and after processing of the density map"
LINK = "https://github.com/leeyeehoo/CSRNet-pytorch/issues/19"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 300
STRIDE = 8


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    seed = int(torch.randint(10 ** 6, ()))
    x, points, counts, sigmas = crowds(600, seed)
    xt, _, ct, _ = crowds(300, seed + 1)
    maps = density(points, sigmas)
    if fixed:
        y = sum_pool(maps, STRIDE)
    else:   # BUG: interpolating resize, rescaled by the pixel ratio
        y = F.interpolate(maps, scale_factor=1 / STRIDE, mode="bicubic",
                          align_corners=False) * STRIDE ** 2
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
