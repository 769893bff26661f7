"""A YOLOv1 written from a first tutorial builds each image's label grid with the cell's
column index first: ``label[grid_x][grid_y] = [x, y, w, h, 1, classes]`` - while the
network's output grid, like every image array, is indexed [row][column], i.e. [grid_y]
[grid_x], and the decoder reads it that way. Every object is written into the cell mirrored
across the diagonal. The loss falls as the network learns to light up that mirrored cell
(its receptive field covers the whole 16x16 image), and every box it is asked for lands in
the transposed cell: only objects near the diagonal are found.

Reported: "np_label index problem" -
https://github.com/DeepBaksuVision/You_Only_Look_Once/issues/8 (the label array is filled as
``np_label[grid_x_index-1][grid_y_index-1] = ...``; the reporter asks whether the x and y
indices are swapped and proposes ``np_label[grid_y_index-1][grid_x_index-1]``). Here: noisy
16x16 scenes with one rectangle (filled: class 0, outline: class 1), a fully convolutional
detector over a 4x4 grid, one box per cell, YOLOv1's sum-squared loss (coordinates x5 on the
object cell, confidence, no-object confidence x0.5, class scores), Adam, 200 steps of 32.
Fix: ``label[i, grid_y, grid_x] = ...`` (row first).

Measured (500 held-out scenes; the highest-confidence box, decoded, against the true box):
mean IoU 0.337 with the bug (IoU > 0.5 on 32.6%), 0.780 fixed (99.0%); seeds + 1000: 0.293
(24.8%) vs 0.772 (97.6%).
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._yolo324 import (CLASSES, HELD_OUT, STRIDE, TRAIN, GridDetector,
                                           batches, scenes, top_box_quality)

TITLE = "np_label index problem"
LINK = "https://github.com/DeepBaksuVision/You_Only_Look_Once/issues/8"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 200
SIZE = 16
GRID = SIZE // STRIDE


def label_grid(boxes, classes, fixed):
    """(N, GRID, GRID, 5 + CLASSES) YOLOv1 targets: x, y within the cell, w, h of the image,
    confidence 1, one-hot class, in the object's cell."""
    label = torch.zeros(len(boxes), GRID, GRID, 5 + CLASSES)
    for i, (cx, cy, w, h) in enumerate(boxes.tolist()):
        grid_x, grid_y = int(cx // STRIDE), int(cy // STRIDE)
        row = [cx / STRIDE - grid_x, cy / STRIDE - grid_y, w / SIZE, h / SIZE, 1.0]
        row += [1.0 if k == int(classes[i]) else 0.0 for k in range(CLASSES)]
        if fixed:
            label[i, grid_y, grid_x] = torch.tensor(row)
        else:
            label[i, grid_x, grid_y] = torch.tensor(row)     # BUG: column index first
    return label


def yolo_loss(out, label):
    obj = label[..., 4] == 1
    noobj = ~obj
    coord = ((out[..., :4] - label[..., :4]) ** 2).sum(-1)[obj].sum()
    conf_obj = ((out[..., 4] - 1.0) ** 2)[obj].sum()
    conf_noobj = (out[..., 4] ** 2)[noobj].sum()
    cls = ((out[..., 5:] - label[..., 5:]) ** 2).sum(-1)[obj].sum()
    return (5.0 * coord + conf_obj + 0.5 * conf_noobj + cls) / len(out)


def run(fixed=False, steps=STEPS, **watch):
    rng = np.random.default_rng(0)
    images, boxes, classes = scenes(TRAIN, rng)
    held_images, held_boxes, _ = scenes(HELD_OUT, rng)
    labels = label_grid(boxes, classes, fixed)
    torch.manual_seed(0)
    model = GridDetector(boxes=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(TRAIN, steps, rng):
            optimizer.zero_grad()
            loss = yolo_loss(model(images[index]), labels[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_iou, mon.held_out_hit_rate = top_box_quality(model, held_images, held_boxes)
    return mon
