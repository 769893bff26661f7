"""Pieces batch 324's hand-written YOLO cases share: noisy grey scenes holding one bright
rectangle each (class 0 drawn filled, class 1 drawn as an outline), a small fully
convolutional grid detector in the first tutorials' YOLOv1 layout (per cell: B boxes of
x, y, w, h, confidence, then the class scores; x, y relative to the cell, w, h relative to
the image), an IoU for (cx, cy, w, h) boxes and the held-out score of the top box. Each
case builds its own targets and loss (that is where the bugs live).

The data come from ``numpy.random.default_rng`` and the weights from ``torch.manual_seed``,
so the benchmark's seed shift reaches both."""
import numpy as np
import torch
from torch import nn

STRIDE = 4          # one grid cell is 4x4 pixels
CLASSES = 2
BATCH = 32
TRAIN = 2000
HELD_OUT = 500


def scenes(n, rng, height=16, width=16):
    """``n`` noisy (1, height, width) images with one rectangle (3..9 pixels a side), its box
    as (cx, cy, w, h) in pixels and its class (0 filled, 1 outline)."""
    images = rng.normal(0, 0.15, (n, 1, height, width)).astype(np.float32)
    boxes = np.zeros((n, 4), np.float32)
    classes = np.zeros(n, np.int64)
    for i in range(n):
        w, h = rng.integers(3, 10, 2)
        x1, y1 = rng.integers(0, width - w + 1), rng.integers(0, height - h + 1)
        images[i, 0, y1:y1 + h, x1:x1 + w] += 1.0
        if rng.random() < 0.5:
            classes[i] = 1
            images[i, 0, y1 + 1:y1 + h - 1, x1 + 1:x1 + w - 1] -= 1.0
        boxes[i] = [x1 + w / 2, y1 + h / 2, w, h]
    return torch.from_numpy(images), torch.from_numpy(boxes), torch.from_numpy(classes)


class GridDetector(nn.Module):
    """Conv body (two 2x2 poolings: a cell is 4x4 pixels) and a 1x1 head giving, per cell,
    ``boxes`` * 5 + CLASSES numbers; the output is (N, rows, columns, boxes * 5 + CLASSES)."""

    def __init__(self, boxes=1):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(32, 32, 3, padding=1), nn.ReLU())
        self.head = nn.Conv2d(32, boxes * 5 + CLASSES, 1)

    def forward(self, x):
        return self.head(self.body(x)).permute(0, 2, 3, 1)


def iou(a, b):
    """Element-wise IoU of (..., 4) boxes given as (cx, cy, w, h)."""
    a1, a2 = a[..., :2] - a[..., 2:] / 2, a[..., :2] + a[..., 2:] / 2
    b1, b2 = b[..., :2] - b[..., 2:] / 2, b[..., :2] + b[..., 2:] / 2
    inter = (torch.min(a2, b2) - torch.max(a1, b1)).clamp(min=0).prod(-1)
    union = a[..., 2:].clamp(min=0).prod(-1) + b[..., 2:].clamp(min=0).prod(-1) - inter
    return inter / union.clamp(min=1e-9)


def decode(out, boxes, height, width):
    """(N, rows, columns, boxes * 5 + C) outputs -> (N, rows, columns, boxes, 4) pixel
    (cx, cy, w, h) boxes, reading row r, column c as the cell at y = r, x = c, and the
    (N, rows, columns, boxes) confidences."""
    n, rows, cols, _ = out.shape
    per_box = out[..., :boxes * 5].reshape(n, rows, cols, boxes, 5)
    r = torch.arange(rows, dtype=torch.float32).view(1, rows, 1, 1)
    c = torch.arange(cols, dtype=torch.float32).view(1, 1, cols, 1)
    cx = (c + per_box[..., 0]) * STRIDE
    cy = (r + per_box[..., 1]) * STRIDE
    w = per_box[..., 2] * width
    h = per_box[..., 3] * height
    return torch.stack([cx, cy, w, h], -1), per_box[..., 4]


def top_box_quality(model, images, boxes, n_boxes=1):
    """Held-out: the highest-confidence box over every cell and slot, decoded; its mean IoU
    with the true box and the share of images where that IoU passes 0.5."""
    height, width = images.shape[-2:]
    with torch.no_grad():
        decoded, conf = decode(model(images), n_boxes, height, width)
    flat = conf.reshape(len(images), -1).argmax(1)
    found = decoded.reshape(len(images), -1, 4)[torch.arange(len(images)), flat]
    overlap = iou(found, boxes)
    return round(float(overlap.mean()), 3), round(float((overlap > 0.5).float().mean()), 3)


def batches(n, steps, rng, batch_size=BATCH):
    for _ in range(steps):
        yield torch.from_numpy(rng.integers(0, n, batch_size))
