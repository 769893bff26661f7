"""Gradient accumulation written as ``if batches_done % gradient_accumulations:`` - the test
is inverted. It is true on every batch EXCEPT the N-th, so with N = 4 the optimizer steps
on three batches of four, and with N = 1 (accumulation switched off) ``x % 1`` is 0 for
every batch: ``optimizer.step()`` and ``optimizer.zero_grad()`` are never called. Nothing
fails; the loss is printed every batch and stays where it started while the gradients pile
up in ``.grad``.

Reported: "Gradient accumulations not working as expected" -
https://github.com/eriklindernoren/PyTorch-YOLOv3/issues/325 (the reporter: "if you set
gradient_accumulations to 1 ... the optimizer never gets called because anything % 1 ==
0"; fix: "just reverse the if condition: ``if batches_done % opt.gradient_accumulations ==
0``"; a maintainer's reply confirms it only works as intended for N = 2). Here a digits
MLP trained by Adam (the repository's optimizer) with ``gradient_accumulations = 1``.

Measured (240 batches, 297 held-out digits): the bug's held-out accuracy 0.10 - the
initial weights, never stepped - and its last-20 training loss 2.31 (2.32 at the start);
the fixed twin's 0.84 and 0.51. Fix: ``if batches_done % GRADIENT_ACCUMULATIONS == 0``.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Gradient accumulations not working as expected"
LINK = "https://github.com/eriklindernoren/PyTorch-YOLOv3/issues/325"
EXPECTED = ("NO_OPTIMIZER_STEP", "PARAMS_NOT_UPDATING")
STEPS = 240                   # batches
GRADIENT_ACCUMULATIONS = 1    # "accumulate over 1 batch": accumulation switched off
HELD_OUT = 297


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for batches_done, (xb, yb) in enumerate(
                batches(x[:-HELD_OUT], y[:-HELD_OUT], steps, batch_size=32)):
            loss = loss_fn(model(xb), yb)
            loss.backward()
            if fixed:
                due = batches_done % GRADIENT_ACCUMULATIONS == 0
            else:
                due = batches_done % GRADIENT_ACCUMULATIONS      # BUG: inverted test
            if due:
                optimizer.step()
                optimizer.zero_grad()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
