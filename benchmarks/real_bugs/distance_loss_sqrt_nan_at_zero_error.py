"""A hand-written Euclidean-distance (RMSE-style) loss, ``mean(sqrt(dx ** 2 + dy ** 2))``,
with nothing added under the square root. The forward pass is finite everywhere, but the
derivative of sqrt at 0 is infinite: a row whose prediction equals its target exactly
gets the gradient inf x 0 = NaN, and that NaN reaches every weight at the next step. Here
the rows without a label are masked the beginner's way, prediction and target both
multiplied by 0: their distance is exactly 0, and the first batch holding one turns every
weight to NaN while the printed loss of that batch was finite.

Reported: "loss突然变为nan?你可能踩了sqrt()的坑" ("the loss suddenly became NaN? you may have
stepped into the sqrt() pit") - http://ddrv.cn/?p=758668 (a custom loss for a GPS distance
error, ``K.mean(tf.sqrt(tf.add(tf.square(lx), tf.square(ly))))``; after trying lower
learning rates, smaller batches, gradient clipping, data filtering and batch
normalisation, the author found "sqrt() ... is not differentiable at x=0 ... the backward
pass may meet a derivative at 0, which is why the loss suddenly becomes NaN", fixed by
adding a tiny number under the sqrt). Here, scaled down, an MLP locating a bright blob on
8x8 noisy images, its (row, column) / 7; a fifth of the images hold no blob and are masked
out of the loss by multiplying by 0; Adam. Fix:
``sqrt(dx ** 2 + dy ** 2 + 1e-10)``.

Measured (300 steps, batch 64, 512 held-out images; held-out mean distance in pixels over
the 400-odd images holding a blob, NaN once the weights are NaN): seed 0,
NaN for the bug against 0.918 for the fixed twin; seeds shifted by 1000, NaN against
0.915.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, mlp
from benchmarks.real_bugs._custom_losses import blob_positions

TITLE = "loss突然变为nan?你可能踩了sqrt()的坑"
LINK = "http://ddrv.cn/?p=758668"
EXPECTED = ("NAN_BORN_IN_BACKWARD",)
STEPS = 300


def distance_loss(predicted, target, mask, fixed=False):
    predicted, target = predicted * mask[:, None], target * mask[:, None]
    dx, dy = predicted[:, 0] - target[:, 0], predicted[:, 1] - target[:, 1]
    squared = dx ** 2 + dy ** 2
    if fixed:
        squared = squared + 1e-10
    return torch.sqrt(squared).sum() / mask.sum()     # BUG (unfixed): sqrt of exactly 0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = blob_positions(2048, empty=0.2, seed=0)
    held_x, held_y = blob_positions(512, empty=0.2, seed=1)
    held = held_y[:, 2] > 0
    model = mlp(outputs=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            has_blob = (yb[:, 2] > 0).float()             # empty images: no position
            loss = distance_loss(model(xb), yb[:, :2], has_blob, fixed=fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        error = ((model(held_x[held]) - held_y[held, :2]) * 7).norm(dim=1).mean().item()
        mon.held_out_distance_pixels = round(error, 3)
    return mon
