"""Dead ReLUs from a huge negative bias (the lesson's first broken network)."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/dead-relu-bias"
FRAMEWORK = "torch"
EXPECTED = "DEAD_RELU"
DESCRIPTION = ("The hidden layer's bias starts at -10: every pre-activation is negative, every "
               "ReLU outputs 0 for every sample, and no gradient reaches the first layer.")
FIX = "Initialise biases at 0 (nn.init.zeros_) and weights with Kaiming init."
STEPS = 120


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    nn.init.constant_(model[0].bias, -10.0)   # BUG: a huge negative bias kills every unit
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
