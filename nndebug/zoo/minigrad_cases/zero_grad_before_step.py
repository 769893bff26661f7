"""zero_grad() between backward() and step() (minigrad)."""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "minigrad/zero-grad-before-step"
FRAMEWORK = "minigrad"
EXPECTED = "PARAMS_NOT_UPDATING"
DESCRIPTION = "zero_grad() wipes the gradients just before step() would use them."
FIX = "Order each iteration as zero_grad() -> forward -> backward() -> step()."
STEPS = 60


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, framework="minigrad"):
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.zero_grad()   # BUG: clears the gradients that step() needs
            optimizer.step()
            mon.step(loss)
    return mon
