"""A small MLP fitted to y = x^3 for x from 1 to 4000 with neither the input nor the target
scaled: the targets reach 6e10, the loss prints in the 1e20s, and Adam's bounded steps never
bring the output anywhere near them - the network learns next to nothing.

Reported: "Neural network could not learn on this type of data, why?" -
https://discuss.pytorch.org/t/neural-network-could-not-learn-on-this-type-of-data-why/96648
(a 1-50-1 ReLU network, MSELoss and Adam on inputs 1..4000 and targets d**3; the answer:
normalise the input and the target with their statistics, train, and un-normalise the
predictions; with that "can successfully learn the data"). Here the same network and
optimiser on 1000 points (800 to train), full-batch. Fix: standardise input and target with
the training rows' statistics; predictions mapped back to raw units for the metric.

Measured harm (held-out R^2, raw units): seed 0: -0.963 vs 0.994; seeds + 1000: -0.679 vs
0.986.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd

TITLE = "Neural network could not learn on this type of data, why?"
LINK = "https://discuss.pytorch.org/t/neural-network-could-not-learn-on-this-type-of-data-why/96648"
EXPECTED = ("TARGETS_UNSCALED", "UNNORMALIZED_INPUTS")
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.uniform(1, 4000, size=(1000, 1)).astype(np.float32))
    y = x ** 3
    x_train, y_train, x_test, y_test = x[:800], y[:800], x[800:], y[800:]
    x_mean, x_std, y_mean, y_std = x_train.mean(), x_train.std(), y_train.mean(), y_train.std()
    if fixed:
        inputs, targets = (x_train - x_mean) / x_std, (y_train - y_mean) / y_std
    else:
        inputs, targets = x_train, y_train          # BUG: raw input and raw x**3 target
    model = nn.Sequential(nn.Linear(1, 50), nn.ReLU(), nn.Linear(50, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = loss_fn(model(inputs), targets)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        if fixed:
            prediction = model((x_test - x_mean) / x_std) * y_std + y_mean
        else:
            prediction = model(x_test)
        y_test, prediction = y_test.double(), prediction.double()
        total = ((y_test - y_test.mean()) ** 2).sum()
        mon.held_out_r2 = round(1 - (((y_test - prediction) ** 2).sum() / total).item(), 3)
    return mon
