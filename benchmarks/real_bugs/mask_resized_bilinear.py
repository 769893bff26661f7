"""Segmentation masks resized with the images' bilinear interpolation: where a class-2
region meets background (0), the interpolated mask passes through 1 and the ``.long()``
turns those rims into class 1, a class that is not there. Every boundary gets a band of
wrong labels; training runs, the loss settles higher, and the model learns to paint
phantom class-1 outlines.

Reported: "mask reading and transformation logic needs update" -
https://github.com/kerner-lab/Mars-Bench/issues/56 (labelled bug: "resize logic by default
bilinear for normal images doesn't work masks; we need the nearest neighbor"). Here the 8x8
digits are upsampled to 16x16 for a small fully convolutional net; each pixel is background
(0), ink in the upper half (1) or ink in the lower half (2), and the mask is resized with
the image's ``mode="bilinear"``. Fix: resize masks with ``mode="nearest"``.

Measured: 23% of the resized mask pixels get a wrong class; the trained net labels 0.78 of
the pixels right against the nearest-neighbour masks (0.83 for the fixed twin), and its
loss settles at the same level (0.34 against 0.33).

Why watch misses it: the wrong labels are valid ids in range, every class keeps its share
roughly, and the loss curve is a healthy one; what is wrong is WHERE class 1 sits (a rim
between 0 and 2), and no recorded statistic reads a target's spatial layout. A check
would have to compare each mask with its image (class-1 pixels only ever between class 0
and class 2) on a kept batch.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "mask reading and transformation logic needs update"
LINK = "https://github.com/kerner-lab/Mars-Bench/issues/56"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 150
INK = 0.4
SIZE = 16


def masks_of(images):
    """(N, 8, 8) class ids: 0 background, 1 ink in rows 0-3, 2 ink in rows 4-7."""
    ink = images[:, 0] > INK
    lower = torch.arange(8)[None, :, None] >= 4
    return torch.where(ink, torch.where(lower, 2, 1), 0)


def resized(images, masks, fixed):
    """Images and masks brought to SIZE x SIZE, as the dataset's resize transform does."""
    big = F.interpolate(images, size=SIZE, mode="bilinear", align_corners=False)
    mode = "nearest" if fixed else "bilinear"           # BUG: masks interpolated too
    ids = F.interpolate(masks[:, None].float(), size=SIZE, mode=mode)
    return big, ids[:, 0].long()


def segmenter():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 3, 1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification(images=True)
    images, masks = resized(x, masks_of(x), fixed)
    model = segmenter()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, F.cross_entropy, batches(images, masks, steps),
                         **watch)
