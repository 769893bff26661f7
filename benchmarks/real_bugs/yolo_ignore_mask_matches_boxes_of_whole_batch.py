"""A hand-written YOLOv3 loss decides which background predictions to leave out of the
objectness loss (those overlapping a true box by IoU > 0.5) by comparing each predicted
box with the true boxes of the WHOLE batch, flattened into one list, instead of with its
own image's boxes. In a batch of 32 scenes the other images' boxes cover most of the
picture, so most background predictions overlap one of them and are ignored: the
objectness of empty cells is hardly ever pushed down, and the detector keeps firing on
background. The loss falls like any run's (the ignored terms are simply missing from it).

Reported: "I'm suspicious about part of loss function.." -
https://github.com/zzh8829/yolov3-tf2/issues/146 (``tf.boolean_mask(true_box, obj_mask)``
turns (batch, grid, grid, anchor, 4) into one (boxes, 4) list: "you have missed batches
because each batch has it's own true_box but you mixed all together"; the maintainer: "The
implication of this bug is we are inadequately penalizing false positives for obj", labelled
bug). Here: noisy 16x16 scenes with one rectangle (filled: class 0, outline: class 1), a
fully convolutional detector over a 4x4 grid (stride 4) with three anchors (4, 7 and 10
pixels square), YOLOv3 targets (the best anchor by width-height IoU, in the centre's cell),
BCE on the sigmoid centre offsets, squared error on the log sizes (scaled by 2 - w * h),
BCE objectness with the ignore mask, BCE classes; Adam, 200 steps of 32. Fix: each image's
predictions compared with that image's true boxes only.

Measured (500 held-out scenes; a detection is a slot with objectness above 0.5): false
detections (IoU with the object under 0.5) per image 0.322 with the bug, 0.156 fixed
(precision 0.786 vs 0.832); seeds + 1000: 0.234 vs 0.070 (precision 0.788 vs 0.836).
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._yolo324 import (HELD_OUT, STRIDE, TRAIN, GridDetector, batches,
                                           iou, scenes)

TITLE = "I'm suspicious about part of loss function.."
LINK = "https://github.com/zzh8829/yolov3-tf2/issues/146"
EXPECTED = ("IGNORE_MASK_FROM_OTHER_IMAGES",)
STEPS = 200
SIZE = 16
GRID = SIZE // STRIDE
ANCHORS = torch.tensor([[4.0, 4.0], [7.0, 7.0], [10.0, 10.0]])       # pixels
A = len(ANCHORS)
IGNORE_THRESH = 0.5


def transform_targets(boxes, classes):
    """(N, GRID, GRID, A, 6) targets: box (cx, cy, w, h in pixels), objectness, class, at
    the best anchor of the box centre's cell."""
    y = torch.zeros(len(boxes), GRID, GRID, A, 6)
    inter = torch.min(boxes[:, None, 2:], ANCHORS[None]).prod(-1)
    overlap = inter / (boxes[:, None, 2:].prod(-1) + ANCHORS.prod(-1)[None] - inter)
    best = overlap.argmax(1)
    for i, (cx, cy, w, h) in enumerate(boxes.tolist()):
        y[i, int(cy // STRIDE), int(cx // STRIDE), int(best[i])] = torch.tensor(
            [cx, cy, w, h, 1.0, float(classes[i])])
    return y


def decode(out):
    n = len(out)
    pred = out[..., :A * 5].reshape(n, GRID, GRID, A, 5)
    r = torch.arange(GRID, dtype=torch.float32).view(1, GRID, 1, 1)
    c = torch.arange(GRID, dtype=torch.float32).view(1, 1, GRID, 1)
    xy = torch.sigmoid(pred[..., :2])
    cx = (c + xy[..., 0]) * STRIDE
    cy = (r + xy[..., 1]) * STRIDE
    wh = torch.exp(pred[..., 2:4].clamp(max=4)) * ANCHORS
    return pred, xy, torch.cat([cx[..., None], cy[..., None], wh], -1)


def yolo_loss(out, y_true, fixed):
    pred, pred_xy, pred_box = decode(out)
    logits = out[..., A * 5:]
    obj_mask = y_true[..., 4]
    true_box = y_true[..., :4]
    with torch.no_grad():
        if fixed:       # each image's predictions against its own true boxes
            best_iou = torch.stack([
                iou(pred_box[i][..., None, :], true_box[i][obj_mask[i] > 0]).max(-1).values
                for i in range(len(out))])
        else:           # BUG: every image's predictions against the whole batch's boxes
            true_box_flat = true_box[obj_mask > 0]
            best_iou = iou(pred_box[..., None, :], true_box_flat).max(-1).values
        ignore_mask = (best_iou < IGNORE_THRESH).float()
    cell = torch.stack([true_box[..., 0] / STRIDE, true_box[..., 1] / STRIDE], -1)
    true_xy = cell - cell.floor()
    true_wh = torch.log((true_box[..., 2:] / ANCHORS).clamp(min=1e-9)) * obj_mask[..., None]
    scale = 2.0 - true_box[..., 2] * true_box[..., 3] / SIZE ** 2
    xy_loss = (obj_mask * scale * F.binary_cross_entropy(
        pred_xy, true_xy, reduction="none").sum(-1)).sum((1, 2, 3))
    wh_loss = (obj_mask * scale * ((true_wh - pred[..., 2:4]) ** 2).sum(-1)).sum((1, 2, 3))
    obj_bce = F.binary_cross_entropy_with_logits(pred[..., 4], obj_mask, reduction="none")
    obj_loss = (obj_mask * obj_bce + (1 - obj_mask) * ignore_mask * obj_bce).sum((1, 2, 3))
    has_object = obj_mask.amax(-1) > 0                     # (N, GRID, GRID)
    class_loss = F.cross_entropy(logits[has_object],
                                 y_true[..., 5].amax(-1)[has_object].long(),
                                 reduction="sum") / len(out)
    return (xy_loss + wh_loss + obj_loss).mean() + class_loss


def detection_quality(model, images, boxes, threshold=0.5):
    """False detections per image (objectness above the threshold, IoU with the object
    under 0.5) and the precision of all detections."""
    with torch.no_grad():
        pred, _, pred_box = decode(model(images))
    found = torch.sigmoid(pred[..., 4]) > threshold
    good = iou(pred_box, boxes[:, None, None, None, :].expand_as(pred_box)) >= 0.5
    false = float((found & ~good).sum()) / len(images)
    precision = float((found & good).sum()) / max(float(found.sum()), 1.0)
    return round(false, 3), round(precision, 3)


def run(fixed=False, steps=STEPS, **watch):
    rng = np.random.default_rng(0)
    images, boxes, classes = scenes(TRAIN, rng)
    held_images, held_boxes, _ = scenes(HELD_OUT, rng)
    targets = transform_targets(boxes, classes)
    torch.manual_seed(0)
    model = GridDetector(boxes=A)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(TRAIN, steps, rng):
            optimizer.zero_grad()
            loss = yolo_loss(model(images[index]), targets[index], fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_false_per_image, mon.held_out_precision = detection_quality(
        model, held_images, held_boxes)
    return mon
