"""The optimizer holds the parameters of another copy of the model (minigrad)."""
import copy

import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "minigrad/optimizer-on-copy"
FRAMEWORK = "minigrad"
EXPECTED = "OPTIMIZER_MISSING_PARAMS"
DESCRIPTION = "The model is deep-copied after the optimizer was built: step() updates the old copy."
FIX = "Build the optimizer from the model you train, after any copying."
STEPS = 60


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    model = copy.deepcopy(model)   # BUG: the optimizer still holds the original's parameters
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, framework="minigrad"):
            model.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
