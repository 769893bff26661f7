"""A detector's default augmentation - a random horizontal flip of every other image - left
on for handwritten digits. A mirrored digit is not the same digit: a mirrored 2 looks like a
5, a mirrored 5 like a 2, mirrored 3s, 7s and 9s are shapes no test image has. Half of the
training images teach the model that a mirrored 2 is a "2", so the classes it must separate
overlap, and held-out digits (never mirrored) are confused.

Reported: "Custom Dataset Question - Mirroring/Flip" -
https://github.com/AlexeyAB/darknet/issues/2630 (a dataset of handwritten numbers; "some
number "2" look like flipped/mirrored number "6"", asking whether to add flip=0; the
maintainer: "You should set `flip=0` in the `[net]` section in cfg-file" - the flip
augmentation, on by default, mirrors the training images). Here a small CNN on the 8x8
digits, each training image flipped left-right with probability 0.5. Fix: no flip.

Measured (300 steps, 297 held-out digits, seed 0): held-out accuracy 0.872 against the
fixed twin's 0.919.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Custom Dataset Question - Mirroring/Flip"
LINK = "https://github.com/AlexeyAB/darknet/issues/2630"
EXPECTED = ("AUGMENTATION_CHANGES_LABEL",)
STEPS = 300
HELD_OUT = 297
FLIP_P = 0.5


def cnn():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 16, 10))


def augmented(data, fixed, generator):
    for xb, yb in data:
        if not fixed:       # BUG: digits mirrored left-right, labels kept
            flip = torch.rand(len(xb), generator=generator) < FLIP_P
            xb = torch.where(flip[:, None, None, None], xb.flip(-1), xb)
        yield xb, yb


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    x, y = classification(images=True)
    model = cnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    data = augmented(batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), fixed, generator)
    mon = train_watched(model, optimizer, F.cross_entropy, data, **watch)
    model.eval()
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
