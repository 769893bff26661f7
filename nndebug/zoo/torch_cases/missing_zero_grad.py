"""The missing zero_grad: gradients pile up from step to step (the lesson's fourth)."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/missing-zero-grad"
FRAMEWORK = "torch"
EXPECTED = "GRADIENTS_ACCUMULATING"
DESCRIPTION = ("optimizer.zero_grad() is never called, so .grad holds the sum of every gradient "
               "so far and each step repeats all the previous updates. The loss may still fall "
               "for a while, which is why this bug survives.")
FIX = "Call optimizer.zero_grad() at the start of every iteration."
STEPS = 100


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            # BUG: no optimizer.zero_grad() here
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
