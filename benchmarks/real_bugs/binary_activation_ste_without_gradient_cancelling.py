"""Binarised activations trained with a straight-through estimator that passes the
gradient through ``sign`` for EVERY pre-activation, ``x + (sign(x) - x).detach()``, instead
of only inside [-1, 1] (QNN/BinaryNet's ``1_{|x| <= 1}``, the "hard tanh" derivative).
Units far outside the range, whose sign no small step can flip, still receive the full
gradient: the estimator's mismatch with the real function grows, updates chase directions
that change nothing in the forward pass, and the network trains to a worse fit. Nothing
errors; the loss falls, only less far and less usefully.

Reported: "Straight through estimator" -
https://github.com/eladhoffer/quantized.pytorch/issues/5 (the repository's quantiser does
not cancel the gradient of large values when it uses the straight-through estimator,
while the QNN paper states that "not cancelling the gradient when r is too large
significantly worsens performance"; the fix is to zero the gradient outside the clipping
range, e.g. clamp to [-1, 1] before the straight-through sign). Here an MLP on the
digits, 64-64-64-10 with batch norm before each of the two binarised activations and the
middle matrix binarised too (straight through, as BinaryNet), Adam at 1e-3. Fix: clamp
the pre-activation to [-1, 1] before the straight-through sign, so the gradient is
cancelled outside it.

Measured (600 steps; held-out accuracy on 397 digits): seed 0, 0.932 for the bug against
0.960 for the fixed twin; seeds shifted by 1000, 0.962 against 0.980 (a modest harm, 2-3
points, but on both draws; the training loss ends higher too).
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._q165 import accuracy, digits_split

TITLE = "Straight through estimator"
LINK = "https://github.com/eladhoffer/quantized.pytorch/issues/5"
EXPECTED = ("STRAIGHT_THROUGH_GRADIENT_NOT_CANCELLED",)
STEPS = 600
WIDTH = 64


class BinaryActivation(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed

    def forward(self, x):
        if self.fixed:
            x = torch.clamp(x, -1, 1)        # the gradient cancelled outside [-1, 1]
        return x + (torch.sign(x) - x).detach()   # BUG when not fixed: passed everywhere


class BinaryLinear(nn.Linear):
    def forward(self, x):
        w = self.weight
        return F.linear(x, w + (torch.sign(w) - w).detach(), self.bias)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits_split(0)
    model = nn.Sequential(nn.Linear(64, WIDTH), nn.BatchNorm1d(WIDTH), BinaryActivation(fixed),
                          BinaryLinear(WIDTH, WIDTH), nn.BatchNorm1d(WIDTH),
                          BinaryActivation(fixed), nn.Linear(WIDTH, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
