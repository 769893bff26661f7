"""Dead ReLUs killed by a learning rate far too high (the lesson's second broken network)."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/dead-relu-lr"
FRAMEWORK = "torch"
EXPECTED = "DEAD_RELU"
DESCRIPTION = ("Plain SGD with lr=3: the first updates are so large that they push most hidden "
               "units into the region where they output 0 for every input, for good.")
FIX = "Lower the learning rate (0.05 works here); nndebug.find_lr suggests one."
STEPS = 150


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=3.0)   # BUG: learning rate far too high
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
