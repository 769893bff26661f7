"""A binary Dice loss that takes an ``ignore_index`` argument and never uses it: the void
pixels (label 255, here a one-pixel band drawn around every object, the way VOC-style
masks mark uncertain borders) go into the Dice sums as a target of 255. Each of them
weighs 255 foreground pixels in the overlap term, so the cheapest way down is to paint
the band as foreground: the network learns to grow every object by a pixel on each side.
The loss falls (it can go below zero), nothing errors, and the masks come out fat.

Reported: "make ignore_index in DiceLoss work" -
https://github.com/qubvel-org/segmentation_models.pytorch/pull/366 (the contributor: the
DiceLoss ``ignore_index`` parameter had no effect on the loss; the merged fix
masks the ignored pixels out of both the predictions and the targets before the sums).
Here a small U-Net (benchmarks/real_bugs/_seg154.py) segments 16x16 noisy scenes of
rectangles as one foreground class, the training masks carrying a void band of 255
around each object. Fix: drop the void pixels (prediction and target) from the Dice sums.

Measured (300 steps, batch 16, 256 held-out scenes scored against their clean masks;
foreground IoU of sigmoid > 0.5): seed 0, 0.370 for the bug against 0.636 for the fixed
twin; seeds shifted by 1000, 0.346 against 0.616.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._seg154 import UNet, batches, mean_iou, scenes

TITLE = "make ignore_index in DiceLoss work"
LINK = "https://github.com/qubvel-org/segmentation_models.pytorch/pull/366"
EXPECTED = ("IGNORE_INDEX_UNUSED",)
STEPS = 300
VOID = 255
SMOOTH = 1.0    # [convention] the usual +1 of a soft Dice


def with_void_band(labels):
    """Background pixels touching an object (8-neighbourhood) relabelled VOID."""
    fg = (labels > 0).float()[:, None]
    grown = F.max_pool2d(fg, 3, stride=1, padding=1)[:, 0] > 0
    return torch.where(grown & (labels == 0), torch.full_like(labels, VOID), labels)


def dice_loss(logits, target, ignore_index=VOID, fixed=False):
    """Binary soft Dice over each image's pixels; ``ignore_index`` names the void label."""
    p = torch.sigmoid(logits).flatten(1)
    t = target.float().flatten(1)
    if fixed:                    # BUG (fixed=False): ignore_index is accepted, never used
        keep = (target != ignore_index).float().flatten(1)
        p, t = p * keep, t * keep
    overlap = (p * t).sum(1)
    return (1 - (2 * overlap + SMOOTH) / (p.sum(1) + t.sum(1) + SMOOTH)).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, labels = scenes(1024, binary=True, sides=(3, 6), seed=0)
    held_images, held_labels = scenes(256, binary=True, sides=(3, 6), seed=1)
    labels = with_void_band(labels)
    model = UNet(out=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(images, labels, steps):
            loss = dice_loss(model(xb)[:, 0], yb, fixed=fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        found = (torch.sigmoid(model(held_images)[:, 0]) > 0.5).long()
        mon.held_out_foreground_iou = mean_iou(found, held_labels, 2)
    return mon
