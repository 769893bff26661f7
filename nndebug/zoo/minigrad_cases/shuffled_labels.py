"""Labels shuffled separately from their inputs (minigrad)."""
import numpy as np

import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "minigrad/shuffled-labels"
FRAMEWORK = "minigrad"
EXPECTED = "LOSS_AT_CHANCE"
DESCRIPTION = ("x and y shuffled with two different permutations: the weights update normally "
               "but the loss stays at ln(10).")
FIX = "Shuffle inputs and labels with the same permutation."
STEPS = 120


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    x, y = digits()
    rng = np.random.default_rng(0)
    x = x[rng.permutation(len(x))]
    y = y[rng.permutation(len(y))]   # BUG: a second, different permutation for the labels
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
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
