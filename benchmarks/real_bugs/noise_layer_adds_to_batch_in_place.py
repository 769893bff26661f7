"""A Gaussian-noise layer written by hand adds its noise in place, ``x += noise``, to the
tensor it is given. The training loop hands the model slices of the training tensor
(``x_train[start:start + 64]``, views that share its memory), so every forward writes the
noise into the training set itself: each epoch adds another draw, the stored images drown in
accumulated noise (its standard deviation grows with the square root of the epochs), and the
network learns less and less about the clean digits it is tested on.

Reported: "Add some noise to input data" - https://github.com/balbasty/cornucopia/pull/13
(the reviewer, before merging: "can you use ``x = x + randn_like`` instead of ``x +=``? I
feel that there could be weird side effects if we modify the input tensor without telling
anyone." - the author changed it). Here an MLP on the digits with such a layer first, trained
for about 17 epochs on sliced batches. Fix: ``x = x + noise`` (a new tensor).

Measured (400 steps = 17 epochs, 297 held-out digits, eval mode): the bug's held-out accuracy
0.79, the training images' standard deviation grown from 0.38 to 1.29 by the end; the fixed
twin's 0.90 (its training set untouched).
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification, train_watched

TITLE = "Add some noise to input data"
LINK = "https://github.com/balbasty/cornucopia/pull/13"
EXPECTED = ("INPUT_MODIFIED_IN_PLACE",)
STEPS = 400
HELD_OUT = 297
BATCH = 64
NOISE = 0.3


class GaussianNoise(nn.Module):
    def __init__(self, std, in_place):
        super().__init__()
        self.std, self.in_place = std, in_place

    def forward(self, x):
        if not self.training:
            return x
        noise = torch.randn_like(x) * self.std
        if self.in_place:
            x += noise                                   # BUG: writes into the caller's tensor
            return x
        return x + noise


def sliced_batches(x, y, steps):
    """Consecutive slices of the (once shuffled) training set: views, not copies."""
    done = 0
    while True:
        for start in range(0, len(x) - BATCH + 1, BATCH):
            yield x[start:start + BATCH], y[start:start + BATCH]
            done += 1
            if done == steps:
                return


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(0).permutation(len(x) - HELD_OUT))
    x_train, y_train = x[:-HELD_OUT][order].clone(), y[:-HELD_OUT][order]
    model = nn.Sequential(GaussianNoise(NOISE, in_place=not fixed), nn.Linear(64, 128), nn.ReLU(),
                          nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        sliced_batches(x_train, y_train, steps), **watch)
    model.eval()
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    mon.train_std = round(float(x_train.std()), 2)
    return mon
