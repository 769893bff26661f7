"""Pixels centred with ``(x - 128) / 128`` while the array is still ``uint8``: the subtraction
happens in 8-bit unsigned arithmetic and wraps around, so every pixel darker than 128 comes
out as ``256 + (x - 128)``. Black (0) becomes 1.0, white (255) 0.99, mid-grey (127) 1.99
and 128 becomes 0: the scale is folded, the background and the strokes look alike and the
edges of the strokes stand out instead. Nothing raises, the inputs even look normalised
(all in [0, 2)).

Reported: "Numpy - normalize RGB pixel array" -
https://stackoverflow.com/questions/48785115/numpy-normalize-rgb-pixel-array (a pixel
[28 25 24] came out as [1.21875 1.1953125 1.1875]; the answer: "the images are loaded as a
numpy array filled with uint8 ... If you perform a subtraction on an uint8 such that the
result is negative, a wraparound happens. Like 123 - 128 == 251"). Here the 8x8 digits are
stored as 8-bit grey levels (0-255), centred with the uint8 expression and fed to a small
MLP. Fix: convert before subtracting (``x.astype(np.float32) - 128``, or ``x - 128.0``).

Measured (200 steps, 297 held-out digits): the bug's held-out accuracy is 0.35, the fixed
twin's 0.89; the training loss over the last 20 steps 1.53 against 0.05.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Numpy - normalize RGB pixel array"
LINK = "https://stackoverflow.com/questions/48785115/numpy-normalize-rgb-pixel-array"
EXPECTED = ("INPUT_VALUES_WRAPPED_AROUND",)
STEPS = 200
HELD_OUT = 297       # the last rows of the digits, never trained on


def grey_levels():
    """The digits as an 8-bit image file would hold them: a uint8 array of 0..255."""
    x, y = classification()
    return np.round(x.numpy() * 255).astype(np.uint8), y


def centred(pixels, fixed):
    if fixed:
        return (pixels.astype(np.float32) - 128) / 128
    return (pixels - 128) / 128     # BUG: uint8 - 128 wraps around before the division


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    pixels, y = grey_levels()
    x = torch.from_numpy(centred(pixels, fixed).astype(np.float32))
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        mon.accuracy = round(float((model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:])
                                   .float().mean()), 3)
    return mon
