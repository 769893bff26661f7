"""Dead ReLUs from a huge negative bias (minigrad)."""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "minigrad/dead-relu-bias"
FRAMEWORK = "minigrad"
EXPECTED = "DEAD_RELU"
DESCRIPTION = ("The hidden bias starts at -10: every ReLU outputs 0 for every sample and no "
               "gradient reaches the first layer.")
FIX = "Initialise biases at 0 and weights with Kaiming init."
STEPS = 100


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    nn.init.constant_(model[0].bias, -10.0)   # BUG: a huge negative bias kills every unit
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, framework="minigrad"):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
