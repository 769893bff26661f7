"""With a learning-rate scheduler enabled, the loop calls scheduler.step() instead of
optimizer.step(): the learning rate follows its schedule, but the weights never change.

Reported: "Help to add a learning rate scheduler" -
https://github.com/ClementPinard/SfmLearner-Pytorch/issues/5 ("the loss doesn't come down
if I use the scheduler"; the maintainer: "scheduler.step() only changes learning rate, but
does not perform optimizer step. You also have to call optimizer.step()"). The code was
`if scheduler: scheduler.step() else: optimizer.step()`. Here a digits MLP with Adam and a
StepLR. Fix: call optimizer.step() every batch, whatever the scheduler.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Help to add a learning rate scheduler"
LINK = "https://github.com/ClementPinard/SfmLearner-Pytorch/issues/5"
EXPECTED = ("PARAMS_NOT_UPDATING",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=100, gamma=0.5)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            if fixed:
                optimizer.step()
            if scheduler:
                scheduler.step()             # BUG: instead of optimizer.step()
            elif not fixed:
                optimizer.step()
            mon.step(loss)
    return mon
