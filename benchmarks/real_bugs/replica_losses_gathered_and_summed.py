"""The loss computed inside the model, nn.DataParallel style, with the replicas written by
hand on one device: each batch of 64 digits is scattered into 8 replicas of 8 rows, each
replica returns its own mean cross-entropy, and the gathered vector of 8 losses is reduced
with .sum() before backward. Each replica's loss is already a mean over its rows, so the
sum is 8 times the batch's mean loss: every gradient is 8 times too large, and SGD with
momentum at a rate chosen for the mean (0.1) steps at an effective 0.8.

Reported: "Use mean as reduction method for loss with DataParallel training" -
https://github.com/nyu-mll/jiant/pull/989 (merged: "computing the average loss (instead of
sum) across GPUs" for the loss gathered from the DataParallel replicas). Here an MLP
(64 -> 128 -> 128 -> 10) on the 8x8 digits wrapped in a module that returns the loss, SGD
lr 0.1 momentum 0.9, batches of 64. Fix: reduce the gathered losses with .mean().

Measured (held-out accuracy on 500 digits after the run): seed 0: 0.102 with the bug,
0.982 fixed; seeds + 1000: 0.114 vs 0.968.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._reg169 import accuracy, split

TITLE = "Use mean as reduction method for loss with DataParallel training"
LINK = "https://github.com/nyu-mll/jiant/pull/989"
EXPECTED = ("LR_TOO_HIGH", "LOSS_SCALED_FOR_BACKWARD")
STEPS = 300
REPLICAS = 8


class WithLoss(nn.Module):
    """The classifier and its loss in one forward, so each replica returns a scalar."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128),
                                 nn.ReLU(), nn.Linear(128, 10))
        self.loss_fn = nn.CrossEntropyLoss()

    def forward(self, x, y):
        return self.loss_fn(self.net(x), y)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = split()
    model = WithLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=64):
            optimizer.zero_grad()
            losses = torch.stack([model(xs, ys) for xs, ys in
                                  zip(xb.chunk(REPLICAS), yb.chunk(REPLICAS))])  # gathered
            loss = losses.mean() if fixed else losses.sum()   # BUG: 8 means summed
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model.net, xh, yh)
    return mon
