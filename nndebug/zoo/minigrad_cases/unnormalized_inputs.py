"""Raw 0..255 pixel values fed to the network (minigrad)."""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "minigrad/unnormalized-inputs"
FRAMEWORK = "minigrad"
EXPECTED = "UNNORMALIZED_INPUTS"
DESCRIPTION = "Pixels on a 0..255 scale: huge pre-activations and gradients."
FIX = "Scale the pixels to [0, 1] or standardise each feature."
STEPS = 80


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    x, y = digits()
    x = x * 255   # BUG: raw pixel values, not normalised
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = optim.SGD(model.parameters(), lr=0.05)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, framework="minigrad"):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
