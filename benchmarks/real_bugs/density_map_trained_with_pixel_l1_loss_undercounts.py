"""The density map is trained with a per-pixel L1 (MAE) loss. Most pixels of a crowd
density map are zero and the rest hold a few hundredths, so the L1 gradient (the sign of the
error, the same size for every pixel) is dominated by the empty pixels: the map is pulled
toward zero, the loss stays low (the report's "loss 0.07") while the predicted counts come
out too small (here a held-out mean of 8.5 heads for 10.1 true, 15.3 for 17.2 on the
crowded pictures; in the report every prediction is 0).

Reported: "loss 0.07" - https://github.com/Neerajj9/CSRNet-keras/issues/2 (the loss is very
low yet after 200 epochs every prediction is 0; the maintainer points at the loss: the
density map's MAE is not what should be trained). Here 32 x 32 synthetic crowds with 0-20
heads, fixed-sigma Gaussian density maps at full resolution, a small FCN without pooling,
Adam. Fix: the pixel MSE (Euclidean) loss of the CSRNet paper.

Measured harm (300 held-out pictures, seed 0 and every seed + 1000): held-out count MAE 1.58
vs 0.45 heads per picture; seeds + 1000: 2.33 vs 1.25.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._density_maps import (CountNet, count_mae, crowds, density,
                                                index_batches)

TITLE = "loss 0.07"
LINK = "https://github.com/Neerajj9/CSRNet-keras/issues/2"
EXPECTED = ("LOSS_PLATEAU",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    seed = int(torch.randint(10 ** 6, ()))
    x, points, counts, sigmas = crowds(600, seed)
    xt, _, ct, _ = crowds(300, seed + 1)
    y = density(points, sigmas)
    model = CountNet(stride=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = F.mse_loss if fixed else F.l1_loss     # BUG when not fixed: pixel MAE
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, 16, seed):
            optimizer.zero_grad()
            loss = loss_fn(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_count_mae = count_mae(model, xt, ct)
    return mon
