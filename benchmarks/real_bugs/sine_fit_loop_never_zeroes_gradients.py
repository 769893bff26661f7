"""A full-batch regression of sin(2x) whose loop calls loss.backward() and optimizer.step()
but never optimizer.zero_grad(): every step adds its gradient to the sum of all earlier
ones, so the update is the running total of the whole history - a momentum of 1 that
never decays - and plain SGD overshoots and kills the fit.

Reported: "Neural net to approximate a sine function" -
https://discuss.pytorch.org/t/neural-net-to-approximate-a-sine-function/101647 (a
1-200-200-1 ReLU network, SGD lr 2e-3, MSELoss, 15000 full-batch epochs on
x in [-7.5, 7.5], y = sin(2x): "It converges around the center, but not at the edges. It
also takes much more cycles than claims I saw in academic papers. What am I doing wrong?";
the posted loop has no zero_grad anywhere). Here 1500 points (1200 to train), a
1-64-64-1 ReLU MLP and 400 SGD steps at lr 0.05 (the report's 2e-3 is for 15000 epochs;
over 400 steps at 2e-3 the running total acts like added momentum and does no harm yet).
Fix: optimizer.zero_grad() before every backward.

Measured harm (held-out R^2): seed 0: -0.006 vs 0.357; seeds + 1000: -0.008 vs 0.306.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._curve_fitting import r2

TITLE = "Neural net to approximate a sine function"
LINK = "https://discuss.pytorch.org/t/neural-net-to-approximate-a-sine-function/101647"
EXPECTED = ("GRADIENTS_ACCUMULATING",)
STEPS = 400
DATA_RANGE = 15
FREQUENCY = 2


def run(fixed=False, steps=STEPS, **watch):
    np.random.seed(0)
    torch.manual_seed(0)
    x = DATA_RANGE * np.random.rand(1500, 1) - DATA_RANGE / 2
    x, y = torch.from_numpy(x).float(), torch.from_numpy(np.sin(FREQUENCY * x)).float()
    x_train, y_train, x_test, y_test = x[:1200], y[:1200], x[1200:], y[1200:]
    model = nn.Sequential(nn.Linear(1, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            if fixed:
                optimizer.zero_grad()       # BUG when not fixed: never called
            loss = loss_fn(model(x_train), y_train)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_r2 = r2(model(x_test), y_test)
    return mon
