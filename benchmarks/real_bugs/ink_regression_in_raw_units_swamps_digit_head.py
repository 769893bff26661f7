"""A two-head network on a shared encoder - a digit classifier (cross-entropy) and a regression
of each image's total ink - whose regression target is left in its raw units: the sum of the
raw 0-16 pixel values, about 310 +- 35 per image. The squared error starts near 1e5 against a
cross-entropy of 2.3; the two are summed with weight 1, so for the first hundred steps the
shared encoder's gradient is the ink term's alone, and Adam bends the encoder into a large
ink detector (mean activation about 26, most units off). The ink error then falls to a few
units and the summed loss looks like a fine run, but the cross-entropy never leaves chance:
the digit head is left with features that measure ink and little else.

Reported: "why not normalize the loss of regression?" -
https://github.com/yuanwei1989/landmark-detection/issues/2 ("the loss of classification is
less than 1, but the loss of regression is larger than 100"). Here the 8x8 digits (the last 297 held out), a shared 64-64-32 encoder, a
10-way digit head and a 1-unit ink head, Adam at 3e-3, 300 steps of 64 images, loss =
cross_entropy + mse.

Fix: standardise the regression target with the training rows' mean and standard deviation
(and undo it on the predictions), so both terms are of order 1.

Measured (held-out digit accuracy, 297 digits): 0.101 with the bug, 0.872 fixed; seeds + 1000:
0.118 vs 0.869.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._mt161 import accuracy, digits, encoder, rows

TITLE = "why not normalize the loss of regression?"
LINK = "https://github.com/yuanwei1989/landmark-detection/issues/2"
EXPECTED = ("TARGETS_UNSCALED",)
STEPS = 300


class DigitAndInk(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = encoder()
        self.digit = nn.Linear(32, 10)
        self.ink = nn.Linear(32, 1)

    def forward(self, x):
        h = self.encoder(x)
        return self.digit(h), self.ink(h).squeeze(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits()
    ink = (x * 16).sum(1)                    # the raw pixel values summed: ~310 per image
    if fixed:
        target = (ink - ink.mean()) / ink.std()
    else:
        target = ink                         # BUG: the regression target in raw units
    model = DigitAndInk()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in rows(len(x), steps):
            optimizer.zero_grad()
            logits, ink_pred = model(x[index])
            loss = F.cross_entropy(logits, y[index]) + F.mse_loss(ink_pred, target[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_accuracy = accuracy(model(x_held)[0], y_held)
    return mon
