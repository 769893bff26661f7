"""A learning-rate range test run in one cell, training in the next: the range test puts
the model's weights back when it finishes, but the optimizer it ran with keeps what it
accumulated - Adam's step count and its running averages of the gradients and of their
squares, gathered while the rate swept up to 10 and the loss blew up. Training then starts
from the right weights with the wrong optimizer state: the second-moment average is still
full of the range test's huge gradients (it forgets them at 0.1% a step), so every update
is divided by a denominator many times too large and the run crawls. Nothing
errors; the loss falls, slowly.

Reported: "Learn.load and LRFinder not functioning properly for the optimizer states" -
https://github.com/fastai/fastai/issues/2892 (running ``lr_find()`` twice in a row gives
very different curves: ``lr_find`` saves the weights and reloads them with ``learn.load``,
which loaded them into the optimizer that already existed, so "the same optimizer state is
being used, despite us trying to load in new weights"; fixed by dropping the optimizer
(``self.opt = None``) when loading without its state, so a fresh one is built).
Here a digits MLP with Adam: a range test of 100 steps, the rate growing exponentially from
1e-7 to 10, the weights saved before it and loaded back after it; then 100 training steps
(about 4.6 epochs of 1,400 digits) at 1e-3 with the same optimizer object. Fix: a fresh optimizer (no state) after the
weights are restored.

Measured (held-out accuracy on 397 digits): seed 0, 0.74 for the bug against 0.88 for the
fixed twin; seeds shifted by 1000, 0.65 against 0.82. The harm shrinks with longer training
as the stale second moments decay (200 steps: 0.88 against 0.94, 0.90 against 0.92; 400
steps: 0.94 against 0.96, 0.93 against 0.94).
"""
import copy

import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, mlp
from benchmarks.real_bugs._nb147 import accuracy, split

TITLE = "Learn.load and LRFinder not functioning properly for the optimizer states"
LINK = "https://github.com/fastai/fastai/issues/2892"
EXPECTED = ("OPTIMIZER_STATE_FROM_EARLIER_RUN",)
STEPS = 100             # about 4.6 epochs: a short fit after lr_find
LR = 1e-3
RANGE_STEPS, START_LR, END_LR = 100, 1e-7, 10.0


def range_test(model, optimizer, loss_fn, x, y):
    """The range test of the cell before training: weights saved, the rate swept up
    exponentially, the weights loaded back (into the same optimizer's parameters)."""
    saved = copy.deepcopy(model.state_dict())
    growth = (END_LR / START_LR) ** (1 / RANGE_STEPS)
    for i, (xb, yb) in enumerate(batches(x, y, RANGE_STEPS, seed=1)):
        for group in optimizer.param_groups:
            group["lr"] = START_LR * growth ** i
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        if not torch.isfinite(loss):
            break
        loss.backward()
        optimizer.step()
    model.load_state_dict(saved)
    for group in optimizer.param_groups:
        group["lr"] = LR


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split(0)
    model = mlp()
    loss_fn = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    range_test(model, optimizer, loss_fn, x, y)
    if fixed:       # the weights loaded without an optimizer state: a fresh optimizer
        optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    # BUG (fixed=False): the range test's Adam state (step count, moments) carries on
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
