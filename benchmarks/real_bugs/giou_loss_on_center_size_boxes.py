"""A box regressor whose predicted and target boxes, both written (cx, cy, w, h), reach a
generalised-IoU loss that reads boxes as corners (x1, y1, x2, y2). A centre read as a top-
left corner and a size read as a bottom-right corner make most boxes inside-out (x2 < x1
whenever w < cx), the IoU of such pairs is meaningless, and the loss pulls the predicted
centres and sizes towards a compromise that is no box at all: the regressor ends far from
its targets while the fixed twin, which converts both to corners first, fits them.

Reported: "Box coordinate bug" -
https://github.com/stevebottos/owl-vit-object-detection/issues/14 ("generalized_box_iou()
expects the bounding boxes in xyxy format, but cxcywh boxes are passed in"; the author:
"Good catch, I'll look into that"). Here a small conv net reads 16x16 synthetic images
holding one bright rectangle and predicts its box as sigmoid (cx, cy, w, h) in [0, 1]
image units; the loss is 1 - GIoU. Fix: convert both boxes to corners before the GIoU.

Measured (200 steps): the fixed twin's boxes reach a GIoU of 0.82 with the rectangles on
its last batch; the bug's, read as the centre-size boxes they were meant to be, -0.69.

Why watch misses it: it names the symptoms (EXPLODING_GRADIENTS, LOSS_OSCILLATING,
DEAD_RELU) but not the cause. Centre-size and corner boxes are both four numbers in [0, 1]
per box, and a hand-written GIoU is plain arithmetic (max, min, products, one quotient)
with nothing in the graph that says which layout its author had in mind. A check would
have to know the boxes' convention, e.g. flag a GIoU whose target "boxes" are inside-out
(x2 < x1) for many rows, which needs the box function itself to be recognised.
"""
import numpy as np
import torch
from torch import nn

TITLE = "Box coordinate bug"
LINK = "https://github.com/stevebottos/owl-vit-object-detection/issues/14"
EXPECTED = ("BOX_FORMAT_MISMATCH",)
STEPS = 200
SIZE = 16
BATCH_SIZE = 32


def rectangles(steps, seed=0):
    """``steps`` batches of (B, 1, SIZE, SIZE) noisy images with one bright rectangle each
    and its box as (cx, cy, w, h) in image units (0..1)."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        images = rng.normal(0, 0.1, (BATCH_SIZE, 1, SIZE, SIZE)).astype(np.float32)
        boxes = np.zeros((BATCH_SIZE, 4), np.float32)
        for i in range(BATCH_SIZE):
            w, h = rng.integers(3, 11, 2)
            x1, y1 = rng.integers(0, SIZE - w + 1), rng.integers(0, SIZE - h + 1)
            images[i, 0, y1:y1 + h, x1:x1 + w] += 1.0
            boxes[i] = [(x1 + w / 2) / SIZE, (y1 + h / 2) / SIZE, w / SIZE, h / SIZE]
        yield torch.from_numpy(images), torch.from_numpy(boxes)


def corners(boxes):
    """(cx, cy, w, h) -> (x1, y1, x2, y2)."""
    cx, cy, w, h = boxes.unbind(-1)
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dim=-1)


EPS = 1e-7   # [convention] the guard torchvision's generalized_box_iou_loss divides with


def generalized_iou(a, b):
    """Row-wise generalised IoU of two (N, 4) tensors of corner boxes (x1, y1, x2, y2)."""
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    top_left = torch.max(a[:, :2], b[:, :2])
    bottom_right = torch.min(a[:, 2:], b[:, 2:])
    inter = (bottom_right - top_left).clamp(min=0).prod(dim=1)
    union = area_a + area_b - inter
    iou = inter / (union + EPS)
    hull = (torch.max(a[:, 2:], b[:, 2:]) - torch.min(a[:, :2], b[:, :2])).clamp(min=0)
    hull_area = hull.prod(dim=1)
    return iou - (hull_area - union) / (hull_area + EPS)


def box_regressor():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(),
                         nn.Linear(64, 4), nn.Sigmoid())


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    model = box_regressor()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for images, boxes in rectangles(steps):
            optimizer.zero_grad()
            predicted = model(images)                      # (cx, cy, w, h)
            if fixed:
                giou = generalized_iou(corners(predicted), corners(boxes))
            else:
                # BUG: centre-size boxes passed where corner boxes are expected
                giou = generalized_iou(predicted, boxes)
            loss = (1 - giou).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.box_quality = float(generalized_iou(corners(model(images)), corners(boxes))
                            .clamp(min=-1).mean())
    return mon
