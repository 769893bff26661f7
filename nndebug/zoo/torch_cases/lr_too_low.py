"""A learning rate so low that nothing is learned in any reasonable time."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/lr-too-low"
FRAMEWORK = "torch"
EXPECTED = "LR_TOO_LOW"
DESCRIPTION = ("SGD at lr=1e-5: every step changes the weights by about a millionth of their "
               "size, and the loss stays where it started.")
FIX = "Raise the learning rate (0.05 for this model); nndebug.find_lr suggests one."
STEPS = 150


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-5)   # BUG: learning rate far too low
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
