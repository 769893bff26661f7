"""A hand-written KAN ([2, 5, 1], cubic B-splines, grid 5 on [-1, 1]) whose knot vector is
only the grid's six points: the ``order`` extra knots on each side of the range are left
out. Cox-de Boor on six knots gives 6 - 3 - 1 = 2 cubic bases, not grid + order = 8, and
the two sit in the middle of the range: towards both ends they fall to zero (at the ends
exactly zero), so near the edges every learned activation is only its SiLU base branch and
in between it has two coefficients to bend with. The run completes, the loss falls, the
fit is poor.

Reported: "Modify B_batch function to use its extend option" -
https://github.com/KindXiaoming/pykan/issues/441 ("there is a extend option, but you did
not use it. Without grid extension, other functions in pykan package will have issues to
get B-splines"). Here the first example of the KAN tutorials, y = exp(sin(pi x1) + x2^2)
on 2,500 points uniform on [-1, 1]^2, 500 held out; Adam (lr 1e-2), batches of 64, 300
steps.

Fix: extend the grid by ``order`` knots of the same spacing on each side before building
the bases (grid + 2 * order + 1 knots, grid + order bases).

Measured (held-out R^2): 0.88 with the bug, 0.999 fixed (a held-out squared error about
100 times the twin's); seeds + 1000: 0.89 vs 0.999.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._hand_kan import KANLayer, held_out_r2, split, uniform_inputs

TITLE = "Modify B_batch function to use its extend option"
LINK = "https://github.com/KindXiaoming/pykan/issues/441"
# no code names a spline basis that does not cover its grid; the closest: the loss ends far
# above where this model should take it
EXPECTED = ("LOSS_PLATEAU",)
STEPS = 300


def data():
    x = uniform_inputs(2500, (1.0, 1.0), seed=0)
    y = torch.exp(torch.sin(np.pi * x[:, 0]) + x[:, 1] ** 2)
    return split(x, y)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = data()
    # BUG (fixed=False): extend=False - the knots stop at the grid's own ends
    model = nn.Sequential(KANLayer(2, 5, extend=fixed), KANLayer(5, 1, extend=fixed))
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
