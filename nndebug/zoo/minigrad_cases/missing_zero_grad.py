"""The missing zero_grad (minigrad): .grad keeps growing from step to step."""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "minigrad/missing-zero-grad"
FRAMEWORK = "minigrad"
EXPECTED = "GRADIENTS_ACCUMULATING"
DESCRIPTION = ("minigrad accumulates into .grad exactly like PyTorch: without zero_grad every "
               "step also repeats all the previous updates.")
FIX = "Call optimizer.zero_grad() at the start of every iteration."
STEPS = 80


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, framework="minigrad"):
            # BUG: no optimizer.zero_grad() here
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
