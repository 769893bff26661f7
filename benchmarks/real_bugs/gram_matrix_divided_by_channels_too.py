"""Gatys-style neural style transfer (the image's pixels optimised against a content and a
style loss on a frozen pretrained network) with the Gram matrix divided by the number of
channels as well as by the number of positions. The squared Gram difference then shrinks
by the square of the channel count (16 and 32 here, i.e. 256x and 1,024x), so at the style
weight the recipe was tuned for the style term hardly pulls: the loss falls, the content
is kept, and the style never arrives. Nothing errors.

Reported: "Confusion in gram matrix normalization division step's denominator values" -
https://github.com/leongatys/PytorchNeuralStyleTransfer/issues/14 (a user proposes
dividing the Gram matrix by channels x height x width instead of height x width and notes
the reference normalisation gives better results; the author explains the Gram matrix only
sums over positions, and dividing by the channels too makes the style loss depend on the
channel count and go to 0 as it grows). Here: 16 held-out 8x8 digits stylised with
diagonal stripes through a small "pretrained" digit network
(benchmarks/real_bugs/_perceptual.py), content at block 2, style at blocks 1 and 2.
Fix: divide the Gram matrix by the positions only (h * w).

Measured (300 Adam steps on the pixels, lr 0.02, style weight 10, seed 0): style distance
of the result clamped to [0, 1] (read with the per-position Gram) 23.1 for the bug, 3.3 for
the fixed twin, from 29.8 for the unstylised digits; the bug's content distance 0.03 (the
twin's 4.9): it barely moved the image.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._perceptual import (CONTENT_ROWS, STYLE_WEIGHT, Canvas, digits_01,
                                              gram, stripes, style_and_content_distances)

TITLE = "Confusion in gram matrix normalization division step's denominator values"
LINK = "https://github.com/leongatys/PytorchNeuralStyleTransfer/issues/14"
EXPECTED = ("LOSS_TERMS_REDUCED_DIFFERENTLY", "GRAM_MATRIX_OVERNORMALISED")
STEPS = 300
LR = 0.02


def gram_of(features, fixed):
    if fixed:
        return gram(features)
    return gram(features) / features.shape[1]          # BUG: divided by the channels too


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = digits_01()
    content = x[-CONTENT_ROWS:]
    canvas = Canvas(content)
    with torch.no_grad():
        content_target = canvas.net.features(content * 2 - 1)[1]
        style_targets = [gram_of(f, fixed) for f in canvas.net.features(stripes() * 2 - 1)]
    optimizer = torch.optim.Adam([canvas.image], lr=LR)
    with nd.watch(canvas, optimizer, **watch) as mon:
        for _ in range(steps):
            features = canvas()
            content_loss = F.mse_loss(features[1], content_target)
            style_loss = sum(F.mse_loss(gram_of(f, fixed), t.expand(len(f), -1, -1))
                             for f, t in zip(features, style_targets))
            loss = content_loss + STYLE_WEIGHT * style_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.style_distance, mon.content_distance = style_and_content_distances(
        canvas.unit_image(), content)
    return mon
