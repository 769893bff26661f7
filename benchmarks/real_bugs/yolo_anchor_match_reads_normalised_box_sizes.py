"""A hand-written YOLOv3 target builder keeps the label boxes' width and height normalised
to the image (0..1), as the label files store them, while the anchors it compares them with
are in grid cells (the config's pixel anchors divided by the stride). The width-height IoU
of a box a fifth to a half of the image wide against anchors 1.5 to 2.5 cells wide is under
the 0.2 threshold for every box and every anchor, so every target is filtered out: no cell
is ever told it holds an object. The box and class losses are empty (0), the objectness
loss trains every cell towards "no object" and falls nicely, and the detector finds
nothing.

Reported: "Anchor Vector Scale Mismatch" - https://github.com/ultralytics/yolov3/issues/1673
("only the lobj reduces and gIoU and class_loss are always zero"; the targets' w and h are
in [0, 1] while the anchor vector is in grid units, "this results in the wh_Iou value to be
very low and hence sets all box to False"). Here: noisy 16x16 scenes with one rectangle
(filled: class 0, outline: class 1), a fully convolutional detector over a 4x4 grid (stride
4) with three anchors per cell (6, 8 and 10 pixels square), YOLOv3-style targets (every
anchor whose width-height IoU with the box passes 0.2, in the box centre's cell), GIoU box
loss, BCE objectness towards the detached IoU, BCE classes; Adam, 200 steps of 32. Fix:
scale the boxes to grid units (``wh * grid``) before matching them with the anchors.

Measured (500 held-out scenes; the box of the highest objectness, decoded, against the
true box): mean IoU 0.000 with the bug (IoU > 0.5 on 0.0%), 0.730 fixed (93.6%); seeds +
1000: 0.000 (0.0%) vs 0.746 (97.6%).
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._yolo324 import (CLASSES, HELD_OUT, STRIDE, TRAIN, GridDetector,
                                           batches, iou, scenes)

TITLE = "Anchor Vector Scale Mismatch"
LINK = "https://github.com/ultralytics/yolov3/issues/1673"
EXPECTED = ("TARGETS_ALL_ONE_VALUE",)
STEPS = 200
SIZE = 16
GRID = SIZE // STRIDE
ANCHORS = torch.tensor([[6.0, 6.0], [8.0, 8.0], [10.0, 10.0]]) / STRIDE   # grid cells
A = len(ANCHORS)
IOU_T = 0.2


def wh_iou(anchors, wh):
    """(A, M) IoU of anchor and box sizes, both centred at one point."""
    inter = torch.min(anchors[:, None], wh[None]).prod(-1)
    return inter / (anchors.prod(-1)[:, None] + wh.prod(-1)[None] - inter)


def build_targets(boxes, classes, fixed):
    """Normalised label rows (image, class, x, y, w, h in 0..1) -> the matched (image,
    anchor, row, column), their cell offsets, sizes in cells and classes."""
    xywh = boxes / SIZE
    image = torch.arange(len(boxes))
    gxy = xywh[:, :2] * GRID                       # centres in grid cells
    gwh = xywh[:, 2:] * GRID if fixed else xywh[:, 2:]   # BUG: sizes left normalised
    keep = wh_iou(ANCHORS, gwh) > IOU_T            # (A, M)
    a, m = keep.nonzero(as_tuple=True)
    gij = gxy[m].long()
    return (image[m], a, gij[:, 1], gij[:, 0], gxy[m] - gij, xywh[m, 2:] * GRID,
            classes[m])


def detector_loss(out, boxes, classes, fixed):
    n = len(out)
    pred = out[..., :A * 5].reshape(n, GRID, GRID, A, 5)
    logits = out[..., A * 5:]
    b, a, gj, gi, txy, twh, tcls = build_targets(boxes, classes, fixed)
    tobj = torch.zeros(n, GRID, GRID, A)
    lbox = torch.zeros(())
    lcls = torch.zeros(())
    if len(b):
        ps = pred[b, gj, gi, a]
        pxy = torch.sigmoid(ps[:, :2])
        pwh = torch.exp(ps[:, 2:4]).clamp(max=1e3) * ANCHORS[a]
        pbox, tbox = torch.cat([pxy, pwh], 1), torch.cat([txy, twh], 1)
        giou = generalised_iou(pbox, tbox)
        lbox = (1.0 - giou).mean()
        tobj[b, gj, gi, a] = giou.detach().clamp(0)
        lcls = F.binary_cross_entropy_with_logits(logits[b, gj, gi],
                                                  F.one_hot(tcls, CLASSES).float())
    lobj = F.binary_cross_entropy_with_logits(pred[..., 4], tobj)
    return 1.0 * lbox + 1.0 * lobj + 0.5 * lcls


def generalised_iou(a, b):
    a1, a2 = a[:, :2] - a[:, 2:] / 2, a[:, :2] + a[:, 2:] / 2
    b1, b2 = b[:, :2] - b[:, 2:] / 2, b[:, :2] + b[:, 2:] / 2
    inter = (torch.min(a2, b2) - torch.max(a1, b1)).clamp(min=0).prod(1)
    union = a[:, 2:].prod(1) + b[:, 2:].prod(1) - inter + 1e-9
    hull = (torch.max(a2, b2) - torch.min(a1, b1)).prod(1) + 1e-9
    overlap = inter / union
    return overlap - (hull - union) / hull


def top_box_quality(model, images, boxes):
    with torch.no_grad():
        out = model(images)
    n = len(images)
    pred = out[..., :A * 5].reshape(n, GRID, GRID, A, 5)
    r = torch.arange(GRID, dtype=torch.float32).view(1, GRID, 1, 1)
    c = torch.arange(GRID, dtype=torch.float32).view(1, 1, GRID, 1)
    cx = (c + torch.sigmoid(pred[..., 0])) * STRIDE
    cy = (r + torch.sigmoid(pred[..., 1])) * STRIDE
    wh = torch.exp(pred[..., 2:4]).clamp(max=1e3) * ANCHORS * STRIDE
    decoded = torch.cat([cx[..., None], cy[..., None], wh], -1).reshape(n, -1, 4)
    top = pred[..., 4].reshape(n, -1).argmax(1)
    overlap = iou(decoded[torch.arange(n), top], boxes)
    return round(float(overlap.mean()), 3), round(float((overlap > 0.5).float().mean()), 3)


def run(fixed=False, steps=STEPS, **watch):
    rng = np.random.default_rng(0)
    images, boxes, classes = scenes(TRAIN, rng)
    held_images, held_boxes, _ = scenes(HELD_OUT, rng)
    torch.manual_seed(0)
    model = GridDetector(boxes=A)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(TRAIN, steps, rng):
            optimizer.zero_grad()
            loss = detector_loss(model(images[index]), boxes[index], classes[index], fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_iou, mon.held_out_hit_rate = top_box_quality(model, held_images, held_boxes)
    return mon
