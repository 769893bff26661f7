"""A learning rate so high that the loss blows up to NaN."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/lr-too-high"
FRAMEWORK = "torch"
EXPECTED = "LR_TOO_HIGH"
DESCRIPTION = ("SGD with momentum at lr=5: each update is larger than the weights themselves; "
               "the loss explodes and turns NaN within a few steps.")
FIX = "Use lr around 0.05 (nndebug.find_lr suggests one); add warm-up and gradient clipping."
STEPS = 60


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=5.0, momentum=0.9)   # BUG: lr far too high
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
