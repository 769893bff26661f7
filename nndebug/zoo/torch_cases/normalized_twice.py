"""Pixels divided by 255 twice: the inputs are a thousand times too small."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/normalized-twice"
FRAMEWORK = "torch"
EXPECTED = "UNNORMALIZED_INPUTS"
DESCRIPTION = ("The data is already in [0, 1] and a transform divides by 255 again: the inputs "
               "are ~0.002, the first layer sees almost nothing and learns very slowly.")
FIX = "Scale once: check the range of a batch (min/max/mean) before training."
STEPS = 100


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    x = x / 255.0   # BUG: x is already in [0, 1]
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
