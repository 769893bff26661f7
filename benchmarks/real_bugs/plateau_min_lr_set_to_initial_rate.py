"""ReduceLROnPlateau given the initial learning rate as its min_lr (the "lower bound on the
learning rate"), so the scheduler can never reduce anything: the validation loss stalls,
the scheduler fires, and the rate stays clamped at its starting value for the whole run.

Reported: "ReduceLROnPlateau potential issue" -
https://github.com/PaulRitsche/DeepACSA/issues/36 (the paper says the rate "was reduced by
a factor of 0.1 after 10 epochs of loss stagnation", but the code passes the learning rate
as min_lr, "which, for me, means it won't reduce at all since the lower bound is reached
from the start"; the maintainer: "You are correct in your assumption that this is a bug").
Here a digits MLP under SGD at a high rate of 0.5 (momentum 0.9), 300 batches of 64 in
10-batch epochs, the plateau scheduler (factor 0.1, patience 2) stepped on the loss of 200
validation digits after every epoch. Fix: a min_lr far below the starting rate (1e-5).

Measured harm (accuracy on 297 other held-out digits): 0.09 vs 0.55 at seed 0;
seeds + 1000: 0.53 vs 0.87.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._sched_usage import accuracy, batches, mean_loss, mlp, split

TITLE = "ReduceLROnPlateau potential issue"
LINK = "https://github.com/PaulRitsche/DeepACSA/issues/36"
EXPECTED = ("LR_TOO_HIGH",)
STEPS = 300
EPOCH = 10
LR = 0.5


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split()
    x_val, y_val, x_test, y_test = x_held[:200], y_held[:200], x_held[200:], y_held[200:]
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    min_lr = 1e-5 if fixed else LR           # BUG when not fixed: the floor is the start rate
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.1, patience=2,
                                                           min_lr=min_lr)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for i, (xb, yb) in enumerate(batches(x, y, steps)):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if (i + 1) % EPOCH == 0:
                scheduler.step(mean_loss(model, x_val, y_val))
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
