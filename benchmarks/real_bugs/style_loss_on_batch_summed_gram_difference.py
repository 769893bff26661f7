"""A feed-forward style network (Johnson et al.: a small image transformer trained so its
outputs match the content image's features and the style image's Gram matrices) whose
style loss sums the Gram difference over the batch before squaring it. Only the batch's
average Gram matrix is then pulled to the style's: one image's too-much style cancels
another's too-little, so individual outputs are left unevenly stylised while the batch
loss looks fine. Nothing errors.

Reported: "About the batch training problem" -
https://github.com/OlavHN/fast-neural-style/issues/7 (the style loss reduced the Gram
difference over the batch dimension before the squared norm; a user found it worked once
the squared norm was taken of each image's difference, and the author changed the code to
broadcast the style Gram over the batch instead). Here: a small convolutional transformer
stylising 8x8 digits with diagonal stripes through a small "pretrained" digit network
(benchmarks/real_bugs/_perceptual.py). Fix: square each image's Gram difference, then
average.

Measured (300 Adam steps, batch 64, 500 training digits, 297 held out, seed 0): held-out
per-image style distance 3.26 (sd 2.04) for the bug, 1.88 (sd 0.98) for the fixed twin,
at about the same content distance (6.5 and 6.7).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._perceptual import (HELD_OUT, SOURCE_ROWS, STYLE_WEIGHT, digits_01,
                                              generator, gram, pretrained, stripes,
                                              style_and_content_distances)

TITLE = "About the batch training problem"
LINK = "https://github.com/OlavHN/fast-neural-style/issues/7"
EXPECTED = ("BATCH_SUMMED_INSIDE_LOSS",)
STEPS = 300
LR = 3e-3


def style_loss(features, targets, fixed):
    total = 0
    for f, t in zip(features, targets):
        difference = gram(f) - t
        if fixed:
            total = total + (difference ** 2).mean()
        else:   # BUG: summed over the batch before squaring (scaled to the same size)
            total = total + (difference.sum(0) ** 2).mean() / len(f) ** 2
    return total


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = digits_01()
    train, held_out = x[SOURCE_ROWS:-HELD_OUT], x[-HELD_OUT:]
    model = generator()
    net = pretrained()
    with torch.no_grad():
        style_targets = [gram(f) for f in net.features(stripes() * 2 - 1)]
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for content, _ in batches(train, train, steps, seed=0):
            features = net.features(model(content) * 2 - 1)
            with torch.no_grad():
                content_target = net.features(content * 2 - 1)[1]
            loss = (F.mse_loss(features[1], content_target)
                    + STYLE_WEIGHT * style_loss(features, style_targets, fixed))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        stylised = model(held_out)
    mon.style_distance, mon.content_distance = style_and_content_distances(stylised, held_out)
    return mon
