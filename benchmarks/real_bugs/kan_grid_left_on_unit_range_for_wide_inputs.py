"""A hand-written KAN ([3, 5, 1], cubic B-splines, grid 5) whose first layer keeps the
default spline grid on [-1, 1] while its three inputs span [-5, 5], [-4, 4] and [-1, 1],
and nothing ever updates the grid. A B-spline is zero outside its knots, so on most of the
first two inputs' range the learned activations are only the SiLU base branch: the
network still fits something (the loss falls), but the wiggles of the target beyond
[-1, 1] are out of its reach and the held-out fit stays poor.

Reported: "about dataset input value" - https://github.com/KindXiaoming/pykan/issues/263
("I have 3 input variables of which range are different. They are [-5, 5] [-4, 4]
[-1, 1]"; the maintainer: "update_grid_from_samples handles that"). Here 2,500 points
drawn uniformly on those ranges, y = sin(x1) + cos(1.5 x2) + x3^2 plus a little noise,
500 held out; Adam (lr 1e-2), batches of 64, 300 steps.

Fix: update the grid from the samples before training - each input's knots placed on the
range the training inputs cover (what update_grid_from_samples does for the first layer).

Measured (held-out R^2): 0.90 with the bug, 0.996 fixed (a held-out squared error 25
times the twin's); seeds + 1000: 0.75 vs 0.996.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._hand_kan import KANLayer, held_out_r2, split, uniform_inputs

TITLE = "about dataset input value"
LINK = "https://github.com/KindXiaoming/pykan/issues/263"
# closest code: the inputs are not on the scale (here: the spline grid) the model assumes
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 300
GRID = 5


def data():
    x = uniform_inputs(2500, (5.0, 4.0, 1.0), seed=0)
    noise = np.random.default_rng(1).normal(0, 0.05, 2500).astype(np.float32)
    noise = torch.from_numpy(noise)
    y = torch.sin(x[:, 0]) + torch.cos(1.5 * x[:, 1]) + x[:, 2] ** 2 + noise
    return split(x, y)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = data()
    model = nn.Sequential(KANLayer(3, 5, grid=GRID), KANLayer(5, 1, grid=GRID))
    if fixed:                                   # the grid follows the training inputs
        model[0].set_range(x.min(0).values, x.max(0).values, GRID)
    # BUG (fixed=False): the knots stay on [-1, 1], most of x1 and x2 lies beyond them
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, seed=0):
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(xb).squeeze(-1), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_r2 = held_out_r2(model, xh, yh)
    return mon
