"""zero_grad() between backward() and step(): the gradients are wiped before they are used."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/zero-grad-before-step"
FRAMEWORK = "torch"
EXPECTED = "PARAMS_NOT_UPDATING"
DESCRIPTION = ("The loop calls optimizer.zero_grad() after loss.backward() and before "
               "optimizer.step(): the step finds no gradients and the weights never change.")
FIX = "Order each iteration as zero_grad() -> forward -> backward() -> step()."
STEPS = 80


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.zero_grad()   # BUG: clears the gradients that step() needs
            optimizer.step()
            mon.step(loss)
    return mon
