"""ReduceLROnPlateau left in its default mode='min' but stepped with the NEGATED validation
loss: while the validation loss falls, the number the scheduler sees rises, every epoch
counts as "no improvement", and the rate is cut again and again while the model is still
learning; training stalls long before it has converged.

Reported: "question of scheduler in 2D-Tan" - https://github.com/microsoft/VideoX/issues/135
(`ReduceLROnPlateau(optimizer, factor=..., patience=...)` stepped with
`-val_state['loss_meter'].avg`; the maintainer: "You are absolutely right. The use of
-val_state['loss_meter'].avg here is indeed a logic error. It conflicts with the default
mode='min'"). Here a digits MLP under SGD (lr 0.05, momentum 0.9), 300 batches of 64 in
10-batch epochs, the plateau scheduler (factor 0.1, patience 2) stepped after every epoch
on the loss of 200 validation digits. Fix: scheduler.step(val_loss).

Measured harm (accuracy on 297 other held-out digits): 0.77 vs 0.96 at seed 0;
seeds + 1000: 0.73 vs 0.97.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._sched_usage import accuracy, batches, mean_loss, mlp, split

TITLE = "question of scheduler in 2D-Tan"
LINK = "https://github.com/microsoft/VideoX/issues/135"
EXPECTED = ("PLATEAU_SCHEDULER_WRONG_METRIC",)
STEPS = 300
EPOCH = 10


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split()
    x_val, y_val, x_test, y_test = x_held[:200], y_held[:200], x_held[200:], y_held[200:]
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.1, patience=2)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for i, (xb, yb) in enumerate(batches(x, y, steps)):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if (i + 1) % EPOCH == 0:
                val_loss = mean_loss(model, x_val, y_val)
                # BUG when not fixed: the negated loss in mode='min'
                scheduler.step(val_loss if fixed else -val_loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
