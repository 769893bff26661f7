"""A learning rate so high that the updates rewrite the weights (minigrad)."""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "minigrad/lr-too-high"
FRAMEWORK = "minigrad"
EXPECTED = "LR_TOO_HIGH"
DESCRIPTION = "SGD with momentum at lr=5: the loss explodes and the ReLUs die within a few steps."
FIX = "Use lr around 0.05; nndebug.find_lr suggests one."
STEPS = 60


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = optim.SGD(model.parameters(), lr=5.0, momentum=0.9)   # BUG: lr far too high
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, framework="minigrad"):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
