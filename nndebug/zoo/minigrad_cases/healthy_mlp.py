"""Healthy (minigrad): a ReLU MLP on the digits with SGD + momentum."""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "minigrad/healthy-mlp"
FRAMEWORK = "minigrad"
EXPECTED = None
DESCRIPTION = "A two-layer ReLU network trained with SGD + momentum on the digits: nothing is wrong."
FIX = "Nothing to fix."
STEPS = 120


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, framework="minigrad"):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
