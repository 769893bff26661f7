"""Weights drawn from N(0, 1) without fan-in scaling: activations grow layer after layer."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/exploding-activations"
FRAMEWORK = "torch"
EXPECTED = "EXPLODING_ACTIVATIONS"
DESCRIPTION = ("Every weight is drawn from a standard normal: each 256-wide layer multiplies "
               "the activation scale by about sqrt(256/2) = 11, so four layers later the "
               "activations are in the tens of thousands.")
FIX = "Use nn.Linear's default or Kaiming init (std = sqrt(2 / fan_in)), not std = 1."
STEPS = 60


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                          nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    for layer in model:
        if isinstance(layer, nn.Linear):
            nn.init.normal_(layer.weight, std=1.0)   # BUG: no 1/sqrt(fan_in) scaling
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
