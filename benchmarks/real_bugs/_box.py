"""Shared pieces of batch 262's single-object localisation cases: noisy grey images holding
one bright rectangle, its box, a small conv regressor, and a hand-checked IoU for scoring.

Every random draw goes through torch's global generator, so a case seeded with
``torch.manual_seed`` replays exactly (and the benchmark's seed shift reaches it)."""
import torch
from torch import nn

SIZE = 16          # the images the network reads are SIZE x SIZE
BATCH = 64
HELD_OUT = 512


def scenes(n, height=SIZE, width=SIZE):
    """n images (n, 1, height, width) with one bright rectangle each, and its box as pixel
    corners (x1, y1, x2, y2), x2 and y2 exclusive."""
    images = 0.1 * torch.randn(n, 1, height, width)
    boxes = torch.zeros(n, 4)
    for i in range(n):
        w = int(torch.randint(3, max(4, int(0.6 * width)) + 1, ()))
        h = int(torch.randint(3, max(4, int(0.6 * height)) + 1, ()))
        x1 = int(torch.randint(0, width - w + 1, ()))
        y1 = int(torch.randint(0, height - h + 1, ()))
        images[i, 0, y1:y1 + h, x1:x1 + w] += 1.0
        boxes[i] = torch.tensor([x1, y1, x1 + w, y1 + h], dtype=torch.float32)
    return images, boxes


def regressor(outputs=4, head=None):
    """A small conv net reading a (1, SIZE, SIZE) image and giving ``outputs`` numbers;
    ``head`` (a module) is appended after the last linear layer when given."""
    layers = [nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
              nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
              nn.Flatten(), nn.Linear(32 * (SIZE // 4) ** 2, 64), nn.ReLU(),
              nn.Linear(64, outputs)]
    if head is not None:
        layers.append(head)
    return nn.Sequential(*layers)


def centre_to_corners(boxes):
    """(cx, cy, w, h) -> (x1, y1, x2, y2), any units."""
    cx, cy, w, h = boxes.unbind(-1)
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dim=-1)


def corners_to_centre(boxes):
    x1, y1, x2, y2 = boxes.unbind(-1)
    return torch.stack([(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1], dim=-1)


def iou(a, b):
    """Row-wise IoU of two (N, 4) tensors of corner boxes; a box whose corners come out
    in the wrong order is taken as its proper rectangle (so it is scored on where it is)."""
    a = torch.cat([torch.min(a[:, :2], a[:, 2:]), torch.max(a[:, :2], a[:, 2:])], 1)
    b = torch.cat([torch.min(b[:, :2], b[:, 2:]), torch.max(b[:, :2], b[:, 2:])], 1)
    inter = (torch.min(a[:, 2:], b[:, 2:]) - torch.max(a[:, :2], b[:, :2])).clamp(min=0)
    inter = inter.prod(dim=1)
    area = (a[:, 2:] - a[:, :2]).prod(dim=1) + (b[:, 2:] - b[:, :2]).prod(dim=1)
    return inter / (area - inter).clamp(min=1e-9)
