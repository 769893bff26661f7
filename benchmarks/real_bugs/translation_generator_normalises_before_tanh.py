"""An image-to-image generator whose last convolution is followed by a normalisation layer
and only then by the output tanh: every output image is normalised on its own (instance
norm, as in CycleGAN), so before the tanh each image has the same mean and spread, set by
the norm's two learned numbers. The network cannot make one output darker, fainter or more
contrasted than another, so whatever differs between targets in those respects is lost.

Reported: "should not normalize input of tanh" -
https://github.com/naoto0804/chainer-cyclegan/pull/2 (the input of the tanh should not be
normalised "because it restricts output color distribution"; the original CycleGAN has no
normalisation before its tanh; the author: "What a critical bug..."). Here a small
convolutional translator on the 8x8 digits: it maps a blurred, dimmed digit (3x3 box blur,
times 0.6) to the sharp one, pixels in [-1, 1] as in CycleGAN. Fix: no normalisation layer
between the last convolution and the tanh.

Measured (300 steps, 512 held-out digits): the held-out MSE in [-1, 1] units is 0.0362 for
the bug, 0.0228 for the fixed twin (seed 0).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "should not normalize input of tanh"
LINK = "https://github.com/naoto0804/chainer-cyclegan/pull/2"
EXPECTED = ("OUTPUT_NORMALISED_BEFORE_SQUASH",)
STEPS = 300


def translator(fixed):
    layers = [nn.Conv2d(1, 16, 3, padding=1), nn.InstanceNorm2d(16, affine=True), nn.ReLU(),
              nn.Conv2d(16, 16, 3, padding=1), nn.InstanceNorm2d(16, affine=True), nn.ReLU(),
              nn.Conv2d(16, 1, 3, padding=1)]
    if not fixed:
        layers.append(nn.InstanceNorm2d(1, affine=True))   # BUG: normalises the tanh's input
    layers.append(nn.Tanh())
    return nn.Sequential(*layers)


def degrade(sharp):
    """Blurred and dimmed copies of images in [-1, 1] (the translator's inputs)."""
    unit = (sharp + 1) / 2
    blurred = F.avg_pool2d(unit, 3, stride=1, padding=1, count_include_pad=False)
    return blurred * 0.6 * 2 - 1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    x = x * 2 - 1                                   # pixels in [-1, 1], as CycleGAN's
    train, held_out = x[:-512], x[-512:]
    model = translator(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for sharp, _ in batches(train, y[:-512], steps):
            loss = F.mse_loss(model(degrade(sharp)), sharp)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_error = F.mse_loss(model(degrade(held_out)), held_out).item()
    return mon
