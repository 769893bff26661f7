"""Vanishing gradients in a deep sigmoid network (minigrad)."""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "minigrad/vanishing-sigmoid"
FRAMEWORK = "minigrad"
EXPECTED = "VANISHING_GRADIENTS"
DESCRIPTION = ("Eight sigmoid layers, each multiplying the backward signal by at most 0.25: "
               "the first layers get almost no gradient.")
FIX = "Use ReLU with Kaiming init, normalisation layers or residual connections."
STEPS = 100


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    x, y = digits()
    layers, width = [], 64
    for _ in range(8):   # BUG: a deep stack of sigmoids squashes the gradient at every layer
        layers += [nn.Linear(width, 32), nn.Sigmoid()]
        width = 32
    model = nn.Sequential(*layers, nn.Linear(32, 10))
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, framework="minigrad"):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
