"""Training a dropout network in eval mode (minigrad)."""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "minigrad/eval-mode-dropout"
FRAMEWORK = "minigrad"
EXPECTED = "TRAINING_IN_EVAL_MODE"
DESCRIPTION = "model.eval() left on for training: dropout is silently off."
FIX = "Call model.train() before training."
STEPS = 50


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Dropout(0.5), nn.Linear(64, 10))
    model.eval()   # BUG: left in eval mode for training
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
