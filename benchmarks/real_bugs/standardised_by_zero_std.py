"""Inputs standardised feature by feature, (x - mean) / std, where some features never
change: their std is 0, 0 / 0 gives NaN, and the NaN reaches every weight at the first step.

Reported: "ImageDataGenerator induces nans" - https://github.com/keras-team/keras/issues/1880
("doesn't have a check to ensure self.std is not zero before it divides the data by them.
This is triggered on the MNIST data set"). Here the digits, whose corner pixels are always
0. Fix: leave constant features alone (divide by max(std, eps)).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "ImageDataGenerator induces nans"
LINK = "https://github.com/keras-team/keras/issues/1880"
EXPECTED = ("NAN_IN_INPUTS",)
STEPS = 100


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    std = x.std(dim=0)
    if fixed:
        std = std.clamp_min(1e-6)
    x = (x - x.mean(dim=0)) / std            # BUG when not fixed: 0 / 0 on constant pixels
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
