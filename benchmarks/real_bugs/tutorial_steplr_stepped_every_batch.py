"""The transfer-learning tutorial's StepLR (step_size=7, gamma=0.1: "decay LR by a factor
of 0.1 every 7 epochs") stepped inside the batch loop: the rate falls tenfold every seven
batches instead of every seven epochs, so after the first twenty batches the network
barely moves again and training stops near where it began.

Reported: "Update transfer_learning_tutorial.py" - https://github.com/pytorch/tutorials/pull/640
("scheduler.step() per epoch not per batch"; merged: "thanks!"). Here a digits MLP under
the tutorial's SGD with momentum 0.9 (rate 0.05 for this small net) and StepLR(7, 0.1),
210 batches of 64 in 21-batch epochs. Fix: scheduler.step() once per epoch, after the
batch loop.

Measured harm (held-out accuracy after training): 0.13 vs 0.96 at seed 0;
seeds + 1000: 0.20 vs 0.96.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._sched_usage import accuracy, batches, mlp, split

TITLE = "Update transfer_learning_tutorial.py"
LINK = "https://github.com/pytorch/tutorials/pull/640"
EXPECTED = ("LR_AT_ZERO", "LR_TOO_LOW", "SCHEDULE_LENGTH_MISMATCH")
STEPS = 210
EPOCH = 21


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7, gamma=0.1)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for i, (xb, yb) in enumerate(batches(x, y, steps)):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            if not fixed:
                scheduler.step()          # BUG when not fixed: an epoch schedule stepped per batch
            mon.step(loss)
            if fixed and (i + 1) % EPOCH == 0:
                scheduler.step()
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
