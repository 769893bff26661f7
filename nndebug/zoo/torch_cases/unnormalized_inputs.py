"""Unnormalised inputs: raw 0..255 pixel values fed straight into the network."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/unnormalized-inputs"
FRAMEWORK = "torch"
EXPECTED = "UNNORMALIZED_INPUTS"
DESCRIPTION = ("The pixels are given on a 0..255 scale: first-layer pre-activations are in the "
               "hundreds, gradients are huge, and the usual learning rates blow up.")
FIX = "Scale the pixels to [0, 1] or standardise each feature (mean 0, std 1)."
STEPS = 120


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    x = x * 255   # BUG: raw pixel values, not normalised
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
