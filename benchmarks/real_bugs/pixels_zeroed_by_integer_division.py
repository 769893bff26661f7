"""Pixels scaled to [0, 1] while the array is still an integer array: every value below 255
becomes 0 under integer division, so the network is fed blank images. It trains, its loss
settles at the level of guessing the most common class, and nothing about the images is
ever learnt.

Reported: "model doesn't learn/weights don't get updated" -
https://github.com/keras-team/keras/issues/255 (the loss stuck at one value and accuracy
0.5 on a two-class image set; the reporter found it: "The problem was my dataset. When
normalizing each pixel to [0, 1], the array was still int, and each pixel became 0. Now
that I properly normalize the images, the model is learning."). Here the 8x8 digits are
stored as 8-bit grey levels (0-240) and divided by 255 with integer division before
training a small convolutional classifier. Fix: convert to float before dividing.

Measured (200 steps, held-out digits): the bug's accuracy is 0.10 (every input is the same
blank image, one class is predicted for all), the fixed twin's 0.89.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "model doesn't learn/weights don't get updated"
LINK = "https://github.com/keras-team/keras/issues/255"
EXPECTED = ("CONSTANT_INPUTS",)
STEPS = 200
HELD_OUT = 297       # the last rows of the digits, never trained on


def grey_levels():
    """The digits as an 8-bit image file would hold them: int64 grey levels 0..240."""
    x, y = classification(images=True)
    return (x * 240).round().long(), y


def scaled(pixels, fixed):
    # BUG (fixed=False): integer division - 0..240 // 255 is 0 for every pixel
    return pixels.float() / 255 if fixed else (pixels // 255).float()


def classifier():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Flatten(),
                         nn.Linear(16 * 64, 10))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    pixels, y = grey_levels()
    x = scaled(pixels, fixed)
    model = classifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        mon.accuracy = round(float((model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:])
                                   .float().mean()), 3)
    return mon
