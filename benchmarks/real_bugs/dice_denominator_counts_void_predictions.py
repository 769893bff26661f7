"""A multi-class soft Dice loss that masks the void pixels out of its overlap term but not
out of its denominator: whatever probability the network puts on a class inside a void
region still counts as predicted area of that class. The cheapest place for that mass is
the class whose Dice barely moves with it (the background, with the largest area), so
the network is taught to call background anything that looks like the unlabelled
objects under the void - which look exactly like the labelled ones. Nothing errors and
the loss falls; the objects come out thinned and missed next to a twin that masks both
terms.

Reported: "dice_loss , valid_mask is not applied on the denominator" -
https://github.com/open-mmlab/mmsegmentation/issues/1088 (the reporter showed, with class
0 ignored, a loss of 0 with the mask applied to the denominator and a non-zero loss
without it, pointing to the implementation that multiplies the denominator by the valid
mask; a maintainer first answered that the denominator did not affect back-propagation).
Here a small U-Net (benchmarks/real_bugs/_seg154.py) segments 16x16 noisy scenes into
background, filled rectangles and outlines; in every training scene a random half-width
strip is left unannotated (void, 255) although objects lie under it. Fix: multiply the
predictions in the denominator by the valid mask too.

Measured (300 steps, batch 16, 256 held-out scenes fully annotated; mean IoU of the two
object classes): seed 0, 0.643 for the bug against 0.686 for the fixed twin; seeds
shifted by 1000, 0.488 against 0.723.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._seg154 import UNet, batches, mean_iou, scenes

TITLE = "dice_loss , valid_mask is not applied on the denominator"
LINK = "https://github.com/open-mmlab/mmsegmentation/issues/1088"
EXPECTED = ("DICE_COUNTS_IGNORED_PIXELS",)
STEPS = 300
CLASSES = 3
VOID = 255
SMOOTH = 1.0    # [convention] the usual +1 of a soft Dice


def with_void_strip(labels, seed=0):
    """A random vertical strip of half the width marked VOID in each scene."""
    rng = np.random.default_rng(seed + 17)
    out = labels.clone()
    width = labels.shape[-1]
    for i, start in enumerate(rng.integers(0, width // 2 + 1, len(labels)).tolist()):
        out[i, :, start:start + width // 2] = VOID
    return out


def dice_loss(logits, target, fixed):
    probabilities = logits.softmax(1)
    valid = (target != VOID)
    onehot = F.one_hot(torch.where(valid, target, 0), CLASSES).permute(0, 3, 1, 2).float()
    valid = valid[:, None].float()
    overlap = (probabilities * onehot * valid).sum((2, 3))
    # BUG (fixed=False): the predictions in the denominator keep their void pixels
    predicted = (probabilities * valid if fixed else probabilities).sum((2, 3))
    area = (onehot * valid).sum((2, 3))
    return (1 - (2 * overlap + SMOOTH) / (predicted + area + SMOOTH)).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, labels = scenes(1024, seed=0)
    held_images, held_labels = scenes(256, seed=1)
    labels = with_void_strip(labels)
    model = UNet(out=CLASSES)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(images, labels, steps):
            loss = dice_loss(model(xb), yb, fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_mean_iou = mean_iou(model(held_images).argmax(1), held_labels, CLASSES)
    return mon
