"""Gradient descent for y = m*x + c that works for x in [0, 1] turns to NaN when the same
code is given x in [0, 100]: the rate chosen for the small inputs is 10^4 times too large
for the big ones, and the weights blow up within a few steps.

Reported: "La regresión lineal en Python sopla gradientes para valores más grandes de x en
y = mx + c" ("linear regression in Python blows up the gradients for larger values of x in
y = mx + c") - https://mejorcodigo.com/p/45698.html (x = np.random.rand(1, 500) works, x =
np.random.rand(1, 500) * 100 gives NaN weight and bias after a couple of iterations at
lr 0.01; the answer: gradient descent only converges for a small enough rate, and rescaling
the data effectively rescales the rate). Here the same data (500 points, y = 5x + 3 + noise,
400 to train) with a torch Linear(1, 1) and full-batch SGD at lr 0.01. Fix: standardise the
input with the training rows' mean and std (the same rate then converges).

Measured harm (held-out MSE): seed 0: nan vs 0.0133; seeds + 1000: nan vs 0.0167.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_regression import standardise

TITLE = ("La regresión lineal en Python sopla gradientes para valores más grandes de x "
         "en y = mx + c")
LINK = "https://mejorcodigo.com/p/45698.html"
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 400


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x = rng.random((500, 1)) * 100                    # the inputs in [0, 100]
    y = 5 * x + 3 + rng.normal(0, 0.1, size=x.shape)
    x = torch.from_numpy(x.astype(np.float32))
    y = torch.from_numpy(y.astype(np.float32))
    x_train, y_train, x_test, y_test = x[:400], y[:400], x[400:], y[400:]
    if fixed:
        x_train, x_test = standardise(x_train, x_test)
    # BUG when not fixed: raw inputs up to 100 with the rate that suits [0, 1]
    model = nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = loss_fn(model(x_train), y_train)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_mse = round(((model(x_test) - y_test) ** 2).mean().item(), 4)
    return mon
