"""Pieces batch 159's detection cases share: noisy 16x16 scenes with one bright rectangle
each, a 4x4 grid of anchors (two square sizes per cell), IoU, box encoding and a small
fully convolutional detector. Each case builds its targets itself (that is where the bugs
live)."""
import numpy as np
import torch
from torch import nn

SIZE = 16            # image side in pixels
STRIDE = 4           # anchor grid cell in pixels (a 4x4 grid)
GRID = SIZE // STRIDE
ANCHOR_SIZES = (4.0, 8.0)   # square anchors at every cell centre, in pixels
A = len(ANCHOR_SIZES)


def scenes(n, rng, kinds=1):
    """``n`` noisy (1, 16, 16) images holding one bright rectangle (3..9 pixels a side,
    anywhere) and its box as (cx, cy, w, h) in pixels; with ``kinds=2`` also each
    rectangle's class, 1 (filled) or 2 (only its outline drawn)."""
    images = rng.normal(0, 0.15, (n, 1, SIZE, SIZE)).astype(np.float32)
    boxes = np.zeros((n, 4), np.float32)
    classes = np.ones(n, np.int64)
    for i in range(n):
        w, h = rng.integers(3, 10, 2)
        x1, y1 = rng.integers(0, SIZE - w + 1), rng.integers(0, SIZE - h + 1)
        images[i, 0, y1:y1 + h, x1:x1 + w] += 1.0
        if kinds == 2 and rng.random() < 0.5:
            classes[i] = 2
            images[i, 0, y1 + 1:y1 + h - 1, x1 + 1:x1 + w - 1] -= 1.0
        boxes[i] = [x1 + w / 2, y1 + h / 2, w, h]
    if kinds == 2:
        return torch.from_numpy(images), torch.from_numpy(boxes), torch.from_numpy(classes)
    return torch.from_numpy(images), torch.from_numpy(boxes)


def anchors():
    """(GRID * GRID * A, 4) anchors as (cx, cy, w, h) pixels, ordered row, column, size (the
    order ``Detector`` lays its outputs out in)."""
    rows = []
    for r in range(GRID):
        for c in range(GRID):
            for s in ANCHOR_SIZES:
                rows.append([(c + 0.5) * STRIDE, (r + 0.5) * STRIDE, s, s])
    return torch.tensor(rows)


def corners(boxes):
    cx, cy, w, h = boxes.unbind(-1)
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dim=-1)


def iou_matrix(a, b):
    """IoU of every (cx, cy, w, h) box in ``a`` (N, 4) with every one in ``b`` (M, 4)."""
    a, b = corners(a)[:, None], corners(b)[None]
    inter = ((torch.min(a[..., 2:], b[..., 2:]) - torch.max(a[..., :2], b[..., :2]))
             .clamp(min=0).prod(-1))
    area_a = (a[..., 2:] - a[..., :2]).prod(-1)
    area_b = (b[..., 2:] - b[..., :2]).prod(-1)
    return inter / (area_a + area_b - inter)


def encode(boxes, priors):
    """Faster R-CNN offsets of ``boxes`` from ``priors`` (both (N, 4) cx, cy, w, h)."""
    return torch.cat([(boxes[:, :2] - priors[:, :2]) / priors[:, 2:],
                      torch.log(boxes[:, 2:] / priors[:, 2:])], dim=1)


def decode(offsets, priors):
    return torch.cat([offsets[:, :2] * priors[:, 2:] + priors[:, :2],
                      torch.exp(offsets[:, 2:].clamp(max=4)) * priors[:, 2:]], dim=1)


class Detector(nn.Module):
    """Conv net over the 16x16 image -> per anchor an objectness logit and four box offsets:
    (B, GRID * GRID * A) logits (or (B, GRID * GRID * A, scores) class logits with
    ``scores`` > 1) and (B, GRID * GRID * A, 4) offsets."""

    def __init__(self, scores=1):
        super().__init__()
        self.scores = scores
        self.body = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(32, 32, 3, padding=1), nn.ReLU())
        self.head = nn.Conv2d(32, A * (scores + 4), 1)

    def forward(self, x):
        out = self.head(self.body(x))                      # (B, A*5, GRID, GRID)
        out = out.permute(0, 2, 3, 1).reshape(len(x), GRID * GRID * A, self.scores + 4)
        if self.scores == 1:
            return out[..., 0], out[..., 1:]
        return out[..., :self.scores], out[..., self.scores:]


def best_box_quality(model, images, boxes):
    """Held-out: decode the box of each image's highest-scoring anchor; its mean IoU with
    the true box, the share of images where that IoU passes 0.5, and the mean top score."""
    priors = anchors()
    with torch.no_grad():
        logits, offsets = model(images)
    top = logits.argmax(1)
    found = decode(offsets[torch.arange(len(images)), top], priors[top])
    overlap = iou_matrix(found, boxes).diagonal()
    score = torch.sigmoid(logits.max(1).values)
    return (round(float(overlap.mean()), 3), round(float((overlap > 0.5).float().mean()), 3),
            round(float(score.mean()), 3))


POSITIVE_IOU = 0.5   # Faster R-CNN / RetinaNet style thresholds
NEGATIVE_IOU = 0.4


def assign(box, priors):
    """One image's targets for its one box: per anchor 1 (object), 0 (background) or -1
    (ignored, IoU between the thresholds), the best anchor always an object; and the
    anchors' offsets to the box."""
    overlap = iou_matrix(priors, box[None])[:, 0]
    labels = torch.full((len(priors),), -1.0)
    labels[overlap < NEGATIVE_IOU] = 0.0
    labels[overlap >= POSITIVE_IOU] = 1.0
    labels[overlap.argmax()] = 1.0
    return labels, encode(box[None].expand(len(priors), 4), priors)


def batches(n, steps, batch_size=32, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        yield torch.from_numpy(rng.integers(0, n, batch_size))
