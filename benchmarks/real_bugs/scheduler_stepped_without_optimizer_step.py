"""scheduler.step() called after every batch in place of optimizer.step(), as if the
scheduler wrapped the optimizer: the gradients are computed and the learning rate follows
its schedule, but no weight ever moves, and the printed loss stays where it started.

Reported: "Scheduler.step() doesn't perform optimizer.step()" -
https://github.com/pytorch/pytorch/issues/3814 ("I wondered why the hell nothing works,
until [I] took a look on weights change between steps, or more accurate its absence";
the answers: the optimizer steps every mini-batch, the scheduler once per epoch). Here a
digits MLP under SGD (lr 0.1, momentum 0.9) with a StepLR, 200 batches of 64 in
20-batch epochs. Fix: optimizer.step() after every backward, scheduler.step() once per
epoch.

Measured harm (held-out accuracy after training): 0.10 vs 0.97 at seed 0;
seeds + 1000: 0.15 vs 0.98.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._sched_usage import accuracy, batches, mlp, split

TITLE = "Scheduler.step() doesn't perform optimizer.step()"
LINK = "https://github.com/pytorch/pytorch/issues/3814"
EXPECTED = ("NO_OPTIMIZER_STEP",)
STEPS = 200
EPOCH = 20


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for i, (xb, yb) in enumerate(batches(x, y, steps)):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            if fixed:
                optimizer.step()
                if (i + 1) % EPOCH == 0:
                    scheduler.step()
            else:
                scheduler.step()          # BUG when not fixed: the scheduler in place of the optimizer
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
