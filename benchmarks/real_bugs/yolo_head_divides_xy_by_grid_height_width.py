"""A YOLOv2 head (the Keras port's ``yolo_head``) turns the network's cell offsets into
boxes relative to the image by dividing by the grid's dimensions, taken from the feature
map's shape as (height, width), while the offsets are stacked as (x, y): x is divided by
the number of rows and y by the number of columns (the box sizes likewise). On square
inputs the two agree; on the wide 16x32 images here every decoded box has twice its x and
width and half its y and height. Training uses the decoded boxes for its ignore mask
(predictions overlapping a true box by IoU > 0.6 are not punished as background), so that
mask is never met, and evaluation decodes every detection in the wrong place; the
coordinate loss, on the raw offsets, falls as usual.

Reported: "Critical problem with non-squared image" -
https://github.com/allanzelener/YAD2K/issues/86 ("conv_dims is equal to [height, width] and
is used to divide box_xy where the order is reversed"; "This causes the network to converge
towards boxes which doesn't make sense at all"; the fix: reverse conv_dims). Here: noisy
16x32 scenes with one rectangle (filled: class 0, outline: class 1), a fully convolutional
detector over a 4x8 grid (stride 4) with three anchors (4, 7 and 10 pixels square), YAD2K's
loss (the best anchor of the centre's cell; objectness x5 towards 1, no-object x1 outside
the ignore mask, squared error on the sigmoid offsets and log sizes, squared error on the
softmax classes), Adam, 200 steps of 32. Fix: divide by (width, height), the grid reversed.

Measured (500 held-out scenes; the box of the highest objectness, decoded by the head,
against the true box): mean IoU 0.011 with the bug (IoU > 0.5 on 0.0%), 0.647 fixed (86.6%);
seeds + 1000: 0.014 (0.0%) vs 0.580 (71.0%).
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._yolo324 import (CLASSES, HELD_OUT, STRIDE, TRAIN, GridDetector,
                                           batches, iou, scenes)

TITLE = "Critical problem with non-squared image"
LINK = "https://github.com/allanzelener/YAD2K/issues/86"
EXPECTED = ("BOX_DECODING_AXES_SWAPPED",)
STEPS = 200
HEIGHT, WIDTH = 16, 32
ROWS, COLS = HEIGHT // STRIDE, WIDTH // STRIDE
ANCHORS = torch.tensor([[4.0, 4.0], [7.0, 7.0], [10.0, 10.0]]) / STRIDE   # grid cells
A = len(ANCHORS)


def yolo_head(out, fixed):
    """Raw outputs -> (xy, wh relative to the image, confidence, class probabilities)."""
    n = len(out)
    pred = out[..., :A * 5].reshape(n, ROWS, COLS, A, 5)
    r = torch.arange(ROWS, dtype=torch.float32).view(1, ROWS, 1, 1)
    c = torch.arange(COLS, dtype=torch.float32).view(1, 1, COLS, 1)
    conv_index = torch.stack([c.expand(1, ROWS, COLS, 1), r.expand(1, ROWS, COLS, 1)], -1)
    conv_dims = torch.tensor([float(ROWS), float(COLS)])       # the map's (height, width)
    if fixed:
        conv_dims = conv_dims.flip(0)                          # (width, height) for (x, y)
    box_xy = (torch.sigmoid(pred[..., :2]) + conv_index) / conv_dims   # BUG unless fixed
    box_wh = torch.exp(pred[..., 2:4].clamp(max=4)) * ANCHORS / conv_dims
    confidence = torch.sigmoid(pred[..., 4])
    class_probs = torch.softmax(out[..., A * 5:], -1)
    return pred, box_xy, box_wh, confidence, class_probs


def preprocess_true_boxes(boxes, classes):
    """(N, ROWS, COLS, A) detector mask and (N, ROWS, COLS, A, 5) matching boxes: offsets in
    the cell, log size over the anchor, class; at the best anchor of the centre's cell."""
    mask = torch.zeros(len(boxes), ROWS, COLS, A)
    matching = torch.zeros(len(boxes), ROWS, COLS, A, 5)
    grid = boxes / STRIDE
    inter = torch.min(grid[:, None, 2:], ANCHORS[None]).prod(-1)
    best = (inter / (grid[:, None, 2:].prod(-1) + ANCHORS.prod(-1)[None] - inter)).argmax(1)
    for i, (x, y, w, h) in enumerate(grid.tolist()):
        row, col, a = int(y), int(x), int(best[i])
        mask[i, row, col, a] = 1.0
        matching[i, row, col, a] = torch.tensor(
            [x - col, y - row, np.log(w / float(ANCHORS[a, 0])),
             np.log(h / float(ANCHORS[a, 1])), float(classes[i])])
    return mask, matching


def yolo_loss(out, true_boxes, mask, matching, fixed):
    """YAD2K's loss; ``true_boxes`` (N, 4) are (x, y, w, h) relative to the image."""
    pred, box_xy, box_wh, confidence, class_probs = yolo_head(out, fixed)
    with torch.no_grad():
        pred_box = torch.cat([box_xy, box_wh], -1)
        best_iou = iou(pred_box, true_boxes[:, None, None, None, :].expand_as(pred_box))
        object_detections = (best_iou > 0.6).float()
    no_object_weights = 1.0 * (1 - object_detections) * (1 - mask)
    no_objects_loss = no_object_weights * confidence ** 2
    objects_loss = 5.0 * mask * (1 - confidence) ** 2
    raw = torch.cat([torch.sigmoid(pred[..., :2]), pred[..., 2:4]], -1)
    coordinates_loss = 1.0 * mask[..., None] * (matching[..., :4] - raw) ** 2
    onehot = torch.nn.functional.one_hot(matching[..., 4].long(), CLASSES).float()
    classification_loss = 1.0 * mask[..., None] * (onehot - class_probs[..., None, :]) ** 2
    total = (no_objects_loss.sum() + objects_loss.sum() + coordinates_loss.sum()
             + classification_loss.sum())
    return 0.5 * total / len(out)


def top_box_iou(model, images, boxes, fixed):
    with torch.no_grad():
        _, box_xy, box_wh, confidence, _ = yolo_head(model(images), fixed)
    n = len(images)
    scale = torch.tensor([float(WIDTH), float(HEIGHT)])
    found = torch.cat([box_xy * scale, box_wh * scale], -1).reshape(n, -1, 4)
    top = confidence.reshape(n, -1).argmax(1)
    overlap = iou(found[torch.arange(n), top], boxes)
    return round(float(overlap.mean()), 3), round(float((overlap > 0.5).float().mean()), 3)


def run(fixed=False, steps=STEPS, **watch):
    rng = np.random.default_rng(0)
    images, boxes, classes = scenes(TRAIN, rng, HEIGHT, WIDTH)
    held_images, held_boxes, _ = scenes(HELD_OUT, rng, HEIGHT, WIDTH)
    mask, matching = preprocess_true_boxes(boxes, classes)
    relative = boxes / torch.tensor([float(WIDTH), float(HEIGHT), float(WIDTH), float(HEIGHT)])
    torch.manual_seed(0)
    model = GridDetector(boxes=A)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(TRAIN, steps, rng):
            optimizer.zero_grad()
            loss = yolo_loss(model(images[index]), relative[index], mask[index],
                             matching[index], fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_iou, mon.held_out_hit_rate = top_box_iou(model, held_images, held_boxes,
                                                          fixed)
    return mon
