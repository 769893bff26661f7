"""An SSD-style detector trained on box annotations left in pixels: the anchors and the
box encoding work in normalised image units (0..1), so the regression targets, the
offsets of each true box from its anchor, come out hundreds of times too large (a
centre 150 pixels from the anchor becomes an offset of 3,000 anchor widths). The Huber
loss the detector uses grows only linearly that far out, so the head creeps towards
targets it can never reach in a normal run, the loss stays huge, and the decoded boxes
are nowhere near the objects; the fixed twin, whose annotations are divided by the image
size first, fits them.

Reported: "Too Big loss" - https://github.com/tensorflow/models/issues/9892 (an SSD
fine-tuned on one class shows a huge loss and a model that "cannot predict properly"; a
second user: "I forgot to normalize the bbox coordinates (xmin, xmax, ymin, ymax) by the
width and height of input image when preprocessing data to tfrecord. This resulted in a
big loss. After correcting my preprocessing code, it works normally."). Here a small conv
net reads 16x16 renderings of 300x300 images holding one bright rectangle; one anchor
per image (the centre, half the image wide) and SSD's encoding with its scale factors
(10, 10, 5, 5). Fix: divide the annotations by the image's width and height.

Measured (200 steps): the decoded boxes overlap the rectangles by an IoU of 0.83 for the
fixed twin, 0.40 for the bug (whose centre offsets are targets near 3,000).

Why watch names it as info only: TARGETS_UNSCALED sees the pixel targets (about 5.4e3
against first outputs of 0.14), but by the last record the outputs have caught up with the
targets' scale (4.8e3 against 5.2e3), which the rule reads as a run that paid the scale off;
the boxes' poor overlap shows neither in the loss curve nor in the outputs' scale. (When
this case was written, the functional ``F.smooth_l1_loss`` was not seen by the loss
capture's function mode, and reading its call off the graph after backward raised: a
MONITOR_ERROR that stopped detailed recording. Both are fixed.)
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs.giou_loss_on_center_size_boxes import rectangles

TITLE = "Too Big loss"
LINK = "https://github.com/tensorflow/models/issues/9892"
EXPECTED = ("TARGETS_UNSCALED",)
STEPS = 200
ORIGINAL_PIXELS = 300                       # the annotations' image width and height
ANCHOR = torch.tensor([0.5, 0.5, 0.5, 0.5])  # (cx, cy, w, h) in image units
SCALES = torch.tensor([10.0, 10.0, 5.0, 5.0])  # SSD's box-coder scale factors


def encode(boxes):
    """(cx, cy, w, h) boxes -> SSD offsets from the anchor."""
    centre = (boxes[:, :2] - ANCHOR[:2]) / ANCHOR[2:] * SCALES[:2]
    size = torch.log(boxes[:, 2:] / ANCHOR[2:]) * SCALES[2:]
    return torch.cat([centre, size], dim=1)


def decode(offsets):
    centre = offsets[:, :2] / SCALES[:2] * ANCHOR[2:] + ANCHOR[:2]
    size = torch.exp((offsets[:, 2:] / SCALES[2:]).clamp(max=10)) * ANCHOR[2:]
    return torch.cat([centre, size], dim=1)


def box_head():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(),
                         nn.Linear(64, 4))


def overlap(a, b):
    """Row-wise IoU of (cx, cy, w, h) boxes."""
    a1, a2 = a[:, :2] - a[:, 2:] / 2, a[:, :2] + a[:, 2:] / 2
    b1, b2 = b[:, :2] - b[:, 2:] / 2, b[:, :2] + b[:, 2:] / 2
    inter = (torch.min(a2, b2) - torch.max(a1, b1)).clamp(min=0).prod(dim=1)
    return inter / (a[:, 2:].prod(dim=1) + b[:, 2:].prod(dim=1) - inter)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    model = box_head()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for images, boxes in rectangles(steps):
            annotations = boxes * ORIGINAL_PIXELS           # the tfrecord's pixel boxes
            if fixed:
                annotations = annotations / ORIGINAL_PIXELS
            # BUG (fixed=False): pixel annotations encoded against normalised anchors
            optimizer.zero_grad()
            loss = F.smooth_l1_loss(model(images), encode(annotations))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        found = decode(model(images))
        if not fixed:
            found = torch.cat([found[:, :2], found[:, 2:]], 1) / ORIGINAL_PIXELS
        mon.box_quality = float(overlap(found, boxes).mean())
    return mon
