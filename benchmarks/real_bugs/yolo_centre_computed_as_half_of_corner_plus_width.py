"""A YOLO label converter that computes the box centre as ``(x1 + w) / 2`` instead of
``x1 + w / 2``: the halving reaches the corner as well as the size, so every label puts
the centre at half its true distance from the image's left (and top) edge, and a box
anywhere but the top-left corner is labelled up and to the left of its object. The
labels are a fixed function of the image, so the network fits them, and the boxes it
predicts are shifted with them.

Reported: "bbox shift in train examples" - https://github.com/ultralytics/yolov5/issues/1668
(labels converted to normalised centre boxes show shifted boxes in the training batches; a
second user whose boxes "display great when plotted manually (x1,y1,w,h)" normalises them
with ``((x1+w)/(2*im_w), ..., w/im_w, h/im_h)``, gets the same shifted boxes, and:
"It is resolved. My formula was incorrect."). Here a small conv net regresses the four
label numbers of one bright rectangle in noisy 16x16 images with a squared error, and its
outputs are read as (cx, cy, w, h). Fix: ``(x1 + w / 2) / im_w``, ``(y1 + h / 2) / im_h``.

Measured (200 steps, 512 held-out images): mean IoU of the decoded boxes with the true
ones 0.218 for the bug against 0.780 fixed at seed 0; seeds + 1000: 0.212 vs 0.785.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._box import (BATCH, HELD_OUT, SIZE, centre_to_corners, iou,
                                       regressor, scenes)

TITLE = "bbox shift in train examples"
LINK = "https://github.com/ultralytics/yolov5/issues/1668"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 200


def yolo_label(boxes, fixed):
    """Pixel corners -> normalised (cx, cy, w, h), as the converter writes them."""
    x1, y1, x2, y2 = boxes.unbind(-1)
    w, h = x2 - x1, y2 - y1
    if fixed:
        cx, cy = x1 + w / 2, y1 + h / 2
    else:
        cx, cy = (x1 + w) / 2, (y1 + h) / 2     # BUG: halves the corner too
    return torch.stack([cx, cy, w, h], dim=-1) / SIZE


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
    with torch.no_grad():
        mon.box_iou = float(iou(centre_to_corners(model(images)) * SIZE, boxes).mean())
    return mon
