"""A learning rate so low that nothing is learned (minigrad)."""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "minigrad/lr-too-low"
FRAMEWORK = "minigrad"
EXPECTED = "LR_TOO_LOW"
DESCRIPTION = "SGD at lr=1e-5: each step moves the weights by a millionth of their size."
FIX = "Raise the learning rate (0.05 for this model)."
STEPS = 100


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = optim.SGD(model.parameters(), lr=1e-5)   # BUG: learning rate far too low
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, framework="minigrad"):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
