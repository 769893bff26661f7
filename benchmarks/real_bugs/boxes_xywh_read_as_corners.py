"""A detector's custom dataset writes its boxes the COCO way, (x, y, w, h) - top-left corner,
width, height - but the detector reads every box as corners (x1, y1, x2, y2). The "x2" it
reads is the width, the "y2" the height: wherever the box starts further from the image's
edge than it is wide, x2 < x1, the box is inside-out, and the regression target's log of
its width, log((x2 - x1) / anchor_w), is the log of a negative number. The box loss is NaN
from the first batch holding such a box, and the NaN gradients wipe out the weights.

Reported: "Bounding Box format Question In Customize Datasets/An example of customized
dataset" - https://github.com/open-mmlab/mmdetection/issues/3901 (training Faster R-CNN on
(x, y, w, h) boxes "gets loss_bbox=nan problem ... But in x_min, x_max, y_min, y_max
format, there is no nan problem and inference result is good"; the maintainer: the
format is "xmin, ymin, xmax, ymax"). Here a small conv net reads 16x16 canvases holding
one 8x8 digit at a random place and regresses its ink's box as deltas from one anchor (the
canvas's central 8x8 box), mmdet's encoding: (dx, dy) = centre offset / anchor size,
(dw, dh) = log(size / anchor size), smooth L1. Fix: convert (x, y, w, h) to corners
(x2 = x + w, y2 = y + h) before encoding.

Measured (150 steps): the bug's loss is NaN from step 1 (63% of the boxes are
inside-out) and every weight NaN after the first step; the fixed twin's mean corner error
on 297 held-out canvases 0.37 pixels.

Why watch misses it (a known miss): it sees NaN regression targets from the first step and
names them (NONFINITE_TARGETS, NAN_LOSS, NAN_GRADIENTS), but the boxes never reach a
recorded call - the loss encodes them before smooth_l1_loss, which is given the deltas
only - so nothing shows that the NaN came from inside-out boxes.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import classification, train_watched

TITLE = "Bounding Box format Question In Customize Datasets/An example of customized dataset"
LINK = "https://github.com/open-mmlab/mmdetection/issues/3901"
EXPECTED = ("BOX_FORMAT_MISMATCH",)
STEPS = 150
HELD_OUT = 297
CANVAS = 16
INK = 0.3
ANCHOR = torch.tensor([4.0, 4.0, 12.0, 12.0])         # the canvas's central 8x8 box, corners


def placed(images, rng):
    """Each 8x8 digit pasted at a random place on a blank canvas; its ink's box written
    COCO-style as (x, y, w, h) in pixels."""
    n = len(images)
    canvas = torch.zeros(n, 1, CANVAS, CANVAS)
    boxes = torch.zeros(n, 4)
    for i, (ox, oy) in enumerate(rng.integers(0, CANVAS - 8 + 1, size=(n, 2))):
        canvas[i, 0, oy:oy + 8, ox:ox + 8] = images[i, 0]
        rows = torch.nonzero(images[i, 0].amax(1) > INK)[:, 0]
        cols = torch.nonzero(images[i, 0].amax(0) > INK)[:, 0]
        x, y = ox + int(cols.min()), oy + int(rows.min())
        boxes[i] = torch.tensor([x, y, int(cols.max()) + 1 - int(cols.min()),
                                 int(rows.max()) + 1 - int(rows.min())], dtype=torch.float32)
    return canvas, boxes


def encode(corners):
    """mmdet's delta encoding against ANCHOR: centre offsets / anchor size, log size ratios."""
    aw, ah = ANCHOR[2] - ANCHOR[0], ANCHOR[3] - ANCHOR[1]
    gw, gh = corners[:, 2] - corners[:, 0], corners[:, 3] - corners[:, 1]
    gx, gy = corners[:, 0] + gw / 2, corners[:, 1] + gh / 2
    return torch.stack([(gx - 8) / aw, (gy - 8) / ah, torch.log(gw / aw), torch.log(gh / ah)], 1)


def decode(deltas):
    aw, ah = ANCHOR[2] - ANCHOR[0], ANCHOR[3] - ANCHOR[1]
    cx, cy = 8 + deltas[:, 0] * aw, 8 + deltas[:, 1] * ah
    w, h = aw * deltas[:, 2].exp(), ah * deltas[:, 3].exp()
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1)


def corners(xywh):
    return torch.cat([xywh[:, :2], xywh[:, :2] + xywh[:, 2:]], 1)


def box_loss(fixed):
    def loss(deltas, boxes):
        gt = corners(boxes) if fixed else boxes   # BUG when not fixed: (x, y, w, h) read as corners
        return F.smooth_l1_loss(deltas, encode(gt))
    return loss


def regressor():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 16, 64), nn.ReLU(), nn.Linear(64, 4))


def batches_of_boxes(canvas, boxes, steps, batch_size=64, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        index = torch.from_numpy(rng.integers(0, len(canvas), batch_size))
        yield canvas[index], boxes[index]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification(images=True)
    canvas, boxes = placed(x, np.random.default_rng(0))
    model = regressor()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, box_loss(fixed),
                        batches_of_boxes(canvas[:-HELD_OUT], boxes[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        predicted = decode(model(canvas[-HELD_OUT:]))
    truth = corners(boxes[-HELD_OUT:])
    mon.box_error = round(float((predicted - truth).abs().mean()), 2)
    return mon
