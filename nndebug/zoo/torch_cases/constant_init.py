"""Every weight initialised to the same constant: all hidden units stay identical."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/constant-init"
FRAMEWORK = "torch"
EXPECTED = "COLLAPSED_ACTIVATIONS"
DESCRIPTION = ("All weights start at 0.01. Every hidden unit computes the same function, gets "
               "the same gradient and makes the same update: the symmetry is never broken and "
               "the layer acts like a single unit.")
FIX = "Initialise weights randomly (PyTorch's default, Kaiming or Glorot); only biases may be constant."
STEPS = 100


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, 10))
    for layer in model:
        if isinstance(layer, nn.Linear):
            nn.init.constant_(layer.weight, 0.01)   # BUG: identical weights, symmetric units
            nn.init.zeros_(layer.bias)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
