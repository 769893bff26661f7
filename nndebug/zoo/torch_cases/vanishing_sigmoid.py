"""Vanishing gradients in a deep sigmoid network (the lesson's third broken network)."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/vanishing-sigmoid"
FRAMEWORK = "torch"
EXPECTED = "VANISHING_GRADIENTS"
DESCRIPTION = ("Eight sigmoid layers: each multiplies the backward signal by at most 0.25, so "
               "the first layers get gradients thousands of times smaller than the last.")
FIX = "Use ReLU (with Kaiming init), normalisation layers or residual connections."
STEPS = 150


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    layers, width = [], 64
    for _ in range(8):   # BUG: a deep stack of sigmoids squashes the gradient at every layer
        layers += [nn.Linear(width, 32), nn.Sigmoid()]
        width = 32
    model = nn.Sequential(*layers, nn.Linear(32, 10))
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
