"""A colorization pipeline converts its images to Lab straight from 0-255 pixel values. The
conversion is written for RGB in [0, 1]: fed 0-255 it raises each value to the 2.4th power
of a number up to 255, and L comes out in the thousands (up to about 8,500 here) and a and b
in the thousands too. The usual scaling that follows (L / 100 as the input, a and b / 128 as
the targets of a tanh head) leaves inputs up to 85 and targets up to 60 that the head can
never reach; the colours decoded back to RGB from the clipped predictions are wrong.

Reported: "The range of output values for rgb2lab" - https://github.com/torch/image/issues/184
("I am trying to convert the RGB image into LAB space ... the output L values should be in
the range 0-100. But I actually got some very big values like 9900."; the maintainer: "the
input RGB values should be between 0 and 1."). Here the 8x8 digits painted in a colour per
class on black, as 0-255 pixels; Lab from them, L / 100 in and a, b / 128 out through an MLP
with a tanh head (Adam, mean-squared error), the predictions decoded back to RGB with the
exact inverse of the same conversion. Fix: the pixels divided by 255 before the conversion
(and the decoded RGB multiplied back by 255).

Measured (held-out RGB mean absolute error of the decoded colours, 0-255 units, lower is
better): 25.48 with the bug, 13.17 fixed; seeds + 1000: 25.51 vs 13.21.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._colour349 import colour_rgb, lab_to_rgb, rgb_to_lab, split
from benchmarks.real_bugs._common import index_batches

TITLE = "The range of output values for rgb2lab"
LINK = "https://github.com/torch/image/issues/184"
EXPECTED = ("UNNORMALIZED_INPUTS", "TARGETS_OUTSIDE_OUTPUT_RANGE")
STEPS = 400
AB_SCALE = 128.0


def to_lab(pixels, fixed):
    """0-255 pixels (N, 3, 8, 8) -> Lab."""
    return rgb_to_lab(pixels / 255 if fixed else pixels)   # BUG: 0-255 into the conversion


def to_pixels(lab, fixed):
    """Lab -> 0-255 pixels, the inverse of ``to_lab``."""
    rgb = lab_to_rgb(lab)
    return (rgb * 255 if fixed else rgb).clamp(0, 255)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rgb, _ = colour_rgb()
    pixels = torch.round(rgb * 255)                          # the images as loaded, 0-255
    lab = to_lab(pixels, fixed)
    n = len(lab)
    L, ab = lab[:, 0].reshape(n, -1) / 100, lab[:, 1:].reshape(n, -1) / AB_SCALE
    (l_train, ab_train, _), (l_test, _, pixels_test) = split(L, ab, pixels)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.Tanh())
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(l_train), steps, batch_size=32, seed=0):
            optimizer.zero_grad()
            loss = F.mse_loss(model(l_train[index]), ab_train[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        m = len(l_test)
        predicted = torch.cat([l_test.view(m, 1, 8, 8) * 100,
                               model(l_test).view(m, 2, 8, 8) * AB_SCALE], 1)
        decoded = to_pixels(predicted, fixed)
        mon.held_out_rgb_error = round(float((decoded - pixels_test).abs().mean()), 2)
    return mon
