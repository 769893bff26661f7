"""Softmax fed into CrossEntropyLoss (minigrad)."""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "minigrad/double-softmax"
FRAMEWORK = "minigrad"
EXPECTED = "DOUBLE_SOFTMAX"
DESCRIPTION = ("nn.Softmax at the end of the model, and CrossEntropyLoss applies log-softmax "
               "again: the loss cannot fall below ~1.5.")
FIX = "Remove the final Softmax; CrossEntropyLoss takes logits."
STEPS = 120


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10),
                          nn.Softmax(dim=1))   # BUG: CrossEntropyLoss applies softmax itself
    optimizer = optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, framework="minigrad"):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
