"""A hand-written IoU whose intersection takes the bottom-right corner with a maximum,
like its top-left corner, instead of a minimum: the "intersection" runs from the later
top-left corner to the farther bottom-right one, so it is larger than either box whenever
one box sticks out of the other, and the IoU loss (1 - IoU) built on it stops rewarding a
box for matching the object: growing the predicted box past the object's far edge
enlarges the intersection and the union together. Trained on that loss alone, the
regressor settles on boxes that are the wrong size and in the wrong place.

Reported: "Error in calc iou ?" - https://github.com/YunYang1994/tensorflow-yolov3/issues/10
(the loss layer's IoU between true and predicted boxes computes
``intersect_xy2 = tf.maximum(true_box_xy + true_box_wh / 2.0, pred_box_xy + pred_box_wh /
2.0)``; "I think tf.minimum ... may be right"; the author: "Oh, my god! sorry for my big
mistake, I'll fix it right now"). Here a small conv net predicts a YOLO-style (cx, cy, w,
h) box through a sigmoid, in image units, for one bright rectangle in noisy 16x16 images,
and is trained on 1 - IoU computed as in the report. Fix: ``torch.min`` for the
intersection's bottom-right corner.

Measured (250 steps, 512 held-out images): mean (correct) IoU of the predicted boxes with
the true ones 0.000 for the bug against 0.881 fixed at seed 0; seeds + 1000: 0.000 vs
0.882. The bug's loss starts negative (-0.16 at the first step: the "intersection" can
exceed the union) and then climbs to about 2.7 and stays there: the ratio has a pole
where its union reaches zero, the optimiser chases it, and the sigmoid outputs saturate
at (1, 0, 1, 0), one flat box on the image's edge for every image.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._box import (BATCH, HELD_OUT, SIZE, centre_to_corners,
                                       corners_to_centre, iou, regressor, scenes)

TITLE = "Error in calc iou ?"
LINK = "https://github.com/YunYang1994/tensorflow-yolov3/issues/10"
EXPECTED = ("LOSS_UNBOUNDED_BELOW",)
STEPS = 250


def iou_loss(pred, true, fixed):
    """1 - IoU of (cx, cy, w, h) boxes, as the report's loss layer computes it."""
    pred_xy, pred_wh = pred[:, :2], pred[:, 2:]
    true_xy, true_wh = true[:, :2], true[:, 2:]
    intersect_xy1 = torch.max(true_xy - true_wh / 2, pred_xy - pred_wh / 2)
    if fixed:
        intersect_xy2 = torch.min(true_xy + true_wh / 2, pred_xy + pred_wh / 2)
    else:
        intersect_xy2 = torch.max(true_xy + true_wh / 2, pred_xy + pred_wh / 2)  # BUG
    intersect_wh = (intersect_xy2 - intersect_xy1).clamp(min=0)
    intersect = intersect_wh[:, 0] * intersect_wh[:, 1]
    union = pred_wh.prod(dim=1) + true_wh.prod(dim=1) - intersect
    return (1 - intersect / union).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = regressor(head=nn.Sigmoid())
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            images, boxes = scenes(BATCH)
            optimizer.zero_grad()
            loss = iou_loss(model(images), corners_to_centre(boxes) / SIZE, fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    images, boxes = scenes(HELD_OUT)
    with torch.no_grad():
        mon.box_iou = float(iou(centre_to_corners(model(images)) * SIZE, boxes).mean())
    return mon
