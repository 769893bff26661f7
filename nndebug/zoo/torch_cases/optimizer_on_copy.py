"""The optimizer holds the parameters of another copy of the model."""
import copy

import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/optimizer-on-copy"
FRAMEWORK = "torch"
EXPECTED = "OPTIMIZER_MISSING_PARAMS"
DESCRIPTION = ("The optimizer is built, then the model is replaced by a deep copy (to keep the "
               "initial weights, say): optimizer.step() updates the old tensors and the model "
               "that is trained never changes.")
FIX = "Build the optimizer from the model you train, after any copying or moving (.to(device))."
STEPS = 80


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    initial = model
    model = copy.deepcopy(initial)   # BUG: the optimizer still holds `initial`'s parameters
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            model.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
