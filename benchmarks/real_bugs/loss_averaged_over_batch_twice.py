"""The criterion already averages over the batch (size_average=True, now reduction='mean')
and the training code divides the loss by the batch size once more: every gradient is
batch-size times too small, i.e. the learning rate is, and the model barely converges.

Reported: "Batch average over Loss" -
https://github.com/jfzhang95/pytorch-deeplab-xception/issues/55 ("the loss has already
been averaged by setting Size_Average=True ... when batch_average is True, the model has a
problem of converging ... the loss might be way too small"). Here a digits MLP, SGD with
momentum, batches of 64. Fix: divide once (the criterion's mean only).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Batch average over Loss"
LINK = "https://github.com/jfzhang95/pytorch-deeplab-xception/issues/55"
EXPECTED = ("LOSS_DIVIDED_BY_BATCH_SIZE", "LR_TOO_LOW")
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()                  # reduction='mean': already averaged
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            if not fixed:
                loss = loss / len(xb)                # BUG: averaged over the batch again
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
