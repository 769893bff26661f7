"""A one-cycle schedule sized in batches (steps_per_epoch=len(loader), epochs=E) but stepped
once per epoch, after the batch loop: it walks E of its E * len(loader) steps, so the rate
never leaves the start of its warm-up - max_lr / 25 - and the cycle that should carry the
model up to max_lr and back down never happens.

Reported: "[bug] OneCycleLR scheduler should be called after every batch" -
https://github.com/ageron/handson-mlp/issues/28 (a textbook's solution notebook:
"train_with_early_stopping() function ... calls scheduler.step() at the end of every epoch.
This seems to work, however, the documentation of OneCycleLR scheduler" says to step it
after every batch). Here a digits MLP under NAdam (lr 1e-3, max_lr 1e-2 as in the
notebook), 15 epochs of 20 batches. Measured on the whole set after training: loss 0.56 and
accuracy 92.1% with the schedule stepped per epoch (the rate rose from 4.0e-4 to 1.0e-3),
against loss 0.069 and 98.7% with it stepped per batch. Fix: scheduler.step() after every
optimizer.step().

How watch finds it: the recorded rates rise through the run and end below the scheduler's
base rate (LR_GROWS_DURING_TRAINING, as an unfinished warm-up). The scheduler itself tells
why: a OneCycleLR planned for 300 steps - the 300 optimizer steps the run took - stepped 15
times, once every 20 optimizer steps (SCHEDULE_LENGTH_MISMATCH).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "[bug] OneCycleLR scheduler should be called after every batch"
LINK = "https://github.com/ageron/handson-mlp/issues/28"
EXPECTED = ("SCHEDULE_LENGTH_MISMATCH", "LR_TOO_LOW")
STEPS = 300
EPOCH = 20            # batches per epoch (len(train_loader))
MAX_LR = 1e-2


def train(fixed=False, steps=STEPS, **watch):
    """The monitor and the trained model."""
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.NAdam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=MAX_LR, epochs=max(1, steps // EPOCH), steps_per_epoch=EPOCH)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for i, (xb, yb) in enumerate(batches(x, y, steps)):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            if fixed:
                scheduler.step()
            elif (i + 1) % EPOCH == 0:
                scheduler.step()             # BUG: once per epoch, the schedule counts batches
            mon.step(loss)
    return mon, model


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]
