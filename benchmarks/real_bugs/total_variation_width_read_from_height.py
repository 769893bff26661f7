"""Gatys-style neural style transfer from a noise image with a total-variation term whose
image width is read from the height's axis (``h, w = shape[1], shape[1]``). On square
images nothing changes; on a wide image the term's slices stop at the height, so only a
left square of the picture is smoothed and the rest keeps the noise it started from - the
whole budget of the term even goes to the left part, which comes out smoother than it
should. The loss falls; nothing errors.

Reported: "lecture 4 : isn't there an issue with h,w ; in cell 31 ?" -
https://github.com/pkmital/CADL/issues/92 (the course's total_variation_loss took both h
and w from dimension 1; the author agreed - non-square images in the tests would have shown
it - and the fix, pkmital/CADL#93, reads w from dimension 2). Here: 16 pairs of held-out
8x8 digits side by side (8x16 images) stylised with diagonal stripes through a small
"pretrained" digit network (benchmarks/real_bugs/_perceptual.py), starting from uniform
noise, TV weight 0.2. Fix: read the width from the width's axis.

Measured (300 Adam steps on the pixels, lr 0.02, style weight 10, seed 0): total variation
of the result's right half (the columns the bug's term never reaches) 39.6 for the bug,
18.7 for the fixed twin (its left half 2.3 and 16.6).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._perceptual import (CONTENT_ROWS, STYLE_WEIGHT, Canvas, digits_01,
                                              gram, stripes)

TITLE = "lecture 4 : isn't there an issue with h,w ; in cell 31 ?"
LINK = "https://github.com/pkmital/CADL/issues/92"
EXPECTED = ("TOTAL_VARIATION_SLICED_SHORT",)
STEPS = 300
LR = 0.02
TV_WEIGHT = 0.2


def total_variation(image, fixed):
    """Summed squared differences of neighbouring pixels, per image (CADL's form)."""
    h = image.shape[2]
    w = image.shape[3] if fixed else image.shape[2]      # BUG: the width read from the height
    down = (image[:, :, :h - 1, :w - 1] - image[:, :, 1:, :w - 1]) ** 2
    right = (image[:, :, :h - 1, :w - 1] - image[:, :, :h - 1, 1:w]) ** 2
    return (down + right).sum() / len(image)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = digits_01()
    content = torch.cat([x[-2 * CONTENT_ROWS:-CONTENT_ROWS], x[-CONTENT_ROWS:]], dim=3)
    canvas = Canvas(torch.rand_like(content))            # started from noise
    with torch.no_grad():
        content_target = canvas.net.features(content * 2 - 1)[1]
        style_targets = [gram(f) for f in canvas.net.features(stripes() * 2 - 1)]
    optimizer = torch.optim.Adam([canvas.image], lr=LR)
    with nd.watch(canvas, optimizer, **watch) as mon:
        for _ in range(steps):
            features = canvas()
            content_loss = F.mse_loss(features[1], content_target)
            style_loss = sum(F.mse_loss(gram(f), t.expand(len(f), -1, -1))
                             for f, t in zip(features, style_targets))
            loss = (content_loss + STYLE_WEIGHT * style_loss
                    + TV_WEIGHT * total_variation(canvas.image, fixed))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    result = canvas.unit_image()
    mon.right_half_tv = round(float(total_variation(result[..., 8:], True)), 1)
    mon.left_half_tv = round(float(total_variation(result[..., :8], True)), 1)
    return mon
