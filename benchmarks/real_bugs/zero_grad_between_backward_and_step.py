"""optimizer.zero_grad() sits between loss.backward() and optimizer.step(): the gradients
are cleared just before the step that should use them, so the weights never move (only
weight decay or momentum could move them, and here there is neither).

Reported: "Why did my learning rate drop from the initial lr" -
https://github.com/Tony-Y/pytorch_warmup/issues/12 (the loop ran `loss.backward();
optimizer.zero_grad(); optimizer.step()`; the maintainer: "Your code does not optimize
model parameters at all because `optimizer.zero_grad()` is called after
`loss.backward()`"). Here a digits MLP with Adam and a linear warmup. Fix: zero_grad()
before backward() (or after step()).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Why did my learning rate drop from the initial lr"
LINK = "https://github.com/Tony-Y/pytorch_warmup/issues/12"
EXPECTED = ("GRADIENTS_DISCARDED", "PARAMS_NOT_UPDATING")
STEPS = 120
WARMUP = 20


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    warmup = torch.optim.lr_scheduler.LambdaLR(optimizer,
                                               lambda step: min(1.0, (step + 1) / WARMUP))
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            if fixed:
                optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            if not fixed:
                optimizer.zero_grad()                # BUG: clears what backward() made
            optimizer.step()
            warmup.step()
            mon.step(loss)
    return mon
