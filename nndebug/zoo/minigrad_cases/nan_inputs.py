"""NaN values in the data (minigrad)."""
import numpy as np

import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "minigrad/nan-inputs"
FRAMEWORK = "minigrad"
EXPECTED = "NAN_IN_INPUTS"
DESCRIPTION = "A few samples carry a NaN pixel: the loss turns NaN, then every weight."
FIX = "Clean or impute missing values before training (nndebug.check_data finds them)."
STEPS = 40


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    x, y = digits()
    x = x.copy()
    x[np.random.default_rng(0).choice(len(x), 20, replace=False), 5] = np.nan   # BUG: missing values
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
