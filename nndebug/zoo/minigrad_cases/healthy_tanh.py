"""Healthy (minigrad): a tanh MLP with dropout, Adam, train/eval switching and validation."""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.common import batches, digits, to_framework

NAME = "minigrad/healthy-tanh"
FRAMEWORK = "minigrad"
EXPECTED = None
DESCRIPTION = ("Two tanh layers with Glorot-scaled weights, dropout, Adam; every 10 steps a "
               "validation pass in eval mode, then back to train mode.")
FIX = "Nothing to fix."
STEPS = 120


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    x, y, x_val, y_val = digits(val=True)
    x_val, y_val = to_framework("minigrad", x_val, y_val)
    model = nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Dropout(0.1), nn.Linear(64, 64),
                          nn.Tanh(), nn.Linear(64, 10))
    for layer in (model[0], model[3], model[5]):
        nn.init.xavier_uniform_(layer.weight)
    optimizer = optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps, framework="minigrad")):
            model.train()
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % 10 == 0:
                model.eval()
                with mg.no_grad():
                    val_loss = loss_fn(model(x_val), y_val)
            mon.step(loss, val_loss=val_loss)
    return mon
