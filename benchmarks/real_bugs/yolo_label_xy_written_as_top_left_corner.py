"""Labels written in YOLO's normalised (x, y, w, h) layout but with (x, y) the box's
top-left corner, while YOLO reads (x, y) as the box's centre: the network learns exactly
what the labels say, and every box it predicts, read as a centre box, sits half a box
width left of and half a box height above the object.

Reported: "All detections are shifted" - https://github.com/AlexeyAB/darknet/issues/2375
("all predicted bboxes are shifted few pixels upper left", although the annotations had
been checked; the reporter: "Oh damn... I forgot coordinates of x,y in YOLO should be the
center of the object, not the top-left corner"). Here a small conv net regresses the four
label numbers of one bright rectangle in noisy 16x16 images with a squared error, and its
outputs are read as (cx, cy, w, h) the way YOLO reads them. Fix: write
``((x1 + x2) / 2 / W, (y1 + y2) / 2 / H, w / W, h / H)``.

Measured (200 steps, 512 held-out images): mean IoU of the decoded boxes with the true
ones 0.144 for the bug against 0.780 fixed at seed 0; seeds + 1000: 0.156 vs 0.785.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._box import (BATCH, HELD_OUT, SIZE, centre_to_corners, iou,
                                       regressor, scenes)

TITLE = "All detections are shifted"
LINK = "https://github.com/AlexeyAB/darknet/issues/2375"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 200


def yolo_label(boxes, fixed):
    """Pixel corners -> the label file's normalised (x, y, w, h)."""
    x1, y1, x2, y2 = boxes.unbind(-1)
    if fixed:
        x, y = (x1 + x2) / 2, (y1 + y2) / 2
    else:
        x, y = x1, y1                       # BUG: the top-left corner, not the centre
    return torch.stack([x, y, x2 - x1, y2 - y1], dim=-1) / SIZE


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = regressor()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            images, boxes = scenes(BATCH)
            optimizer.zero_grad()
            loss = F.mse_loss(model(images), yolo_label(boxes, fixed))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    images, boxes = scenes(HELD_OUT)
    with torch.no_grad():                   # YOLO reads (x, y) as the centre
        mon.box_iou = float(iou(centre_to_corners(model(images)) * SIZE, boxes).mean())
    return mon
