"""A ``LambdaLR`` whose function returns the learning rate itself instead of the factor
that multiplies it: PyTorch multiplies the optimizer's rate by what the function returns,
so the rate the model trains with is the intended rate squared (0.01 becomes 0.0001) and
the model barely moves.

Reported: "Lambda learning rate scheduler" - https://github.com/lhoyer/MIC/issues/60
(``LambdaLR(optimizer, lambda x: args.lr * (1. + args.lr_gamma * float(x)) **
(-args.lr_decay))``: "The lambda in LambdaLR is supposed to return the factor to multiply
with the base learning rate ... This causes the base lr to be multiplied twice"; the
author: "Yes, you are right about this"). Here the same inverse decay on the digits MLP
trained with SGD and momentum. Fix: the function returns the factor only.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Lambda learning rate scheduler"
LINK = "https://github.com/lhoyer/MIC/issues/60"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 150
LR, GAMMA, DECAY = 0.01, 0.001, 0.75        # the report's inverse decay, its values


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    if fixed:
        factor = lambda step: (1.0 + GAMMA * step) ** (-DECAY)          # noqa: E731
    else:                                                # BUG: the rate, not a factor
        factor = lambda step: LR * (1.0 + GAMMA * step) ** (-DECAY)     # noqa: E731
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            scheduler.step()
            mon.step(loss)
    return mon
