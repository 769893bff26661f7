"""A configuration switch meant to turn the learning-rate schedule off builds the same
StepLR with gamma=0 instead of gamma=1: at the first step boundary the rate is multiplied
by zero and stays there, so training stops silently after ``step_size`` epochs while the
loop runs on.

Reported: "Bug when scheduler turned off" -
https://github.com/LINCellularNeuroscience/VAME/issues/26 ("When the 'scheduler' parameter
is turned off, the learning rate decreases to 0 after 100 epochs ... with
optimizer_scheduler deactivated, gamma should be 1, not 0"; the maintainer: "You are
absolutely right, this is a bug we need to fix"). Here a digits MLP under Adam, 15 epochs
of 20 batches, the StepLR stepped per epoch with step_size=5 as the "off" branch builds it.
Measured on 500 held-out digits: loss 1.26, accuracy 81.4% when the rate fell to zero after
5 epochs, against loss 0.45 and 88.4% with gamma=1.
Fix: gamma=1 (or no scheduler) when the schedule is turned off.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Bug when scheduler turned off"
LINK = "https://github.com/LINCellularNeuroscience/VAME/issues/26"
EXPECTED = ("LR_AT_ZERO",)
STEPS = 300
EPOCH = 20            # batches per epoch
STEP_SIZE = 5         # epochs between the StepLR's multiplications
HELD_OUT = 500


def train(fixed=False, steps=STEPS, **watch):
    """The monitor and the trained model."""
    torch.manual_seed(0)
    x, y = classification()
    x, y = x[:-HELD_OUT], y[:-HELD_OUT]
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    use_scheduler = False                    # the configuration turns the schedule off
    if use_scheduler:
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=STEP_SIZE, gamma=0.2)
    else:
        # BUG (not fixed): gamma=0 multiplies the rate by zero instead of keeping it
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=STEP_SIZE,
                                                    gamma=1.0 if fixed else 0.0)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for i, (xb, yb) in enumerate(batches(x, y, steps)):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            if (i + 1) % EPOCH == 0:
                scheduler.step()
            mon.step(loss)
    return mon, model


def evaluate(model):
    x, y = classification()
    with torch.no_grad():
        out = model(x[-HELD_OUT:])
    loss = nn.functional.cross_entropy(out, y[-HELD_OUT:]).item()
    accuracy = (out.argmax(1) == y[-HELD_OUT:]).float().mean().item()
    return "held-out loss %.3f accuracy %.4f" % (loss, accuracy)


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]
