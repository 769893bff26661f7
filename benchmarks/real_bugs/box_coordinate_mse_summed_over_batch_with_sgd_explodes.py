"""A detector's box-coordinate loss written YOLO-style, ``coord_scale * (mse(pred, target)
* mask).sum()`` with ``nn.MSELoss(reduce=False)``: summed over every box of the batch
instead of averaged, it is batch-size x 4 coordinates x coord_scale times the mean, and so
is its gradient. With plain SGD at an ordinary rate the steps are ~1,000 times too large:
the loss explodes to inf and NaN within a few steps. (With Adam, whose steps do not grow
with the gradient's scale, the same loss trains - what the reporter saw.)

Reported: "Use mse and sgd, the gradient explode" -
https://github.com/pytorch/pytorch/issues/31016 ("I calculate coordinate loss in Yolo by
mse(nn.MSELoss), and train model by sgd, the gradient explode"; ``mse =
nn.MSELoss(reduce=False)`` and ``loss_coord_center = coor_xy_scale * (coord_mask *
mse(coord_center, tcoord_center)).sum()``; "When I use Adam optimizer and mse, the
gradient can't explode"; the maintainer: likely not a bug in pytorch). Here 8x8 images with
one bright box each, a small convolutional regressor of the box's centre and size
(fractions of the image), batches of 64, SGD with momentum at lr 0.01, coord_scale 5. Fix:
average the coordinate loss over the boxes (``.mean()``) instead of summing it.

Measured harm (held-out mean IoU of the predicted boxes, 400 images): seed 0: 0.00 (NaN
boxes) vs 0.69; seeds + 1000: 0.00 vs 0.74.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches

TITLE = "Use mse and sgd, the gradient explode"
LINK = "https://github.com/pytorch/pytorch/issues/31016"
EXPECTED = ("LR_TOO_HIGH", "EXPLODING_GRADIENTS")
STEPS = 300
COORD_SCALE = 5.0


def boxes(n, rng):
    """n images (n, 1, 8, 8) with one bright box on noise, and (cx, cy, w, h) in [0, 1]."""
    images = rng.normal(0.0, 0.1, (n, 1, 8, 8)).astype(np.float32)
    targets = np.zeros((n, 4), np.float32)
    for i in range(n):
        w, h = rng.integers(2, 6, 2)
        x0, y0 = rng.integers(0, 9 - w), rng.integers(0, 9 - h)
        images[i, 0, y0:y0 + h, x0:x0 + w] += 1.0
        targets[i] = [(x0 + w / 2) / 8, (y0 + h / 2) / 8, w / 8, h / 8]
    return torch.from_numpy(images), torch.from_numpy(targets)


def iou(a, b):
    """Mean IoU of (cx, cy, w, h) boxes; a non-finite prediction counts as 0."""
    def corners(t):
        return t[:, :2] - t[:, 2:] / 2, t[:, :2] + t[:, 2:] / 2
    (a0, a1), (b0, b1) = corners(a), corners(b)
    inter = (torch.min(a1, b1) - torch.max(a0, b0)).clamp(min=0).prod(1)
    union = a[:, 2:].clamp(min=0).prod(1) + b[:, 2:].prod(1) - inter
    value = inter / union
    return round(torch.where(torch.isfinite(value), value, torch.zeros_like(value))
                 .mean().item(), 3)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, t = boxes(2400, rng)
    x_train, t_train, x_test, t_test = x[:2000], t[:2000], x[2000:], t[2000:]
    model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                          nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.Flatten(),
                          nn.Linear(16 * 64, 64), nn.ReLU(), nn.Linear(64, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    mse = nn.MSELoss(reduction="none")
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, tb in batches(x_train, t_train, steps):
            optimizer.zero_grad()
            per_box = mse(model(xb), tb)
            # BUG when not fixed: summed over the batch's boxes and coordinates
            loss = COORD_SCALE * (per_box.mean() if fixed else per_box.sum())
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_iou = iou(model(x_test), t_test)
    return mon
