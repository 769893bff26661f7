"""A DeepONet (branch net on the input function's 32 sensor values, trunk net on the query
point y, output = branch . trunk + b) for the antiderivative operator s(y) = int_0^y u,
trained on aligned triples (u_i, y_i, s_i(y_i)) - one query point per row - but merged with
the Cartesian-product formula einsum("bi,ni->bn", branch, trunk) of DeepONetCartesianProd,
meant for every function against one shared grid of points. With one point per row that
gives a (batch, batch) table: row i holds function i at EVERY row's point, and the MSE
broadcasts it against the (batch, 1) targets, so function i is asked for its value at its
own point at all the other points too. The trunk is pushed towards a constant and the
branch towards each function's average antiderivative; the loss falls, the operator is not
learned.

Reported: "Error code of DeepONetCartesianProd in deeponet.py" -
https://github.com/lululxvi/deepxde/issues/979 ("it will prouduce a matrix with size
(batchsize,batchsize), but we need (batchsize,1)"; the fix the thread settles on for
aligned data: x = torch.sum(x_func * x_loc, dim=-1, keepdim=True)). Here 600 random
periodic functions on 64 points (32 sensors), 20 query points each as aligned triples,
branch and trunk MLPs (width 64, 40 basis functions), targets divided by their training
standard deviation, Adam 3e-3, 400 steps of 64 triples.

Fix: merge each row's branch and trunk outputs with each other (the element-wise product
summed over the basis), one prediction per triple.

Measured (held-out relative L2 error of s on the full 64-point grid, 100 new functions,
branch x trunk over the grid as DeepONet is evaluated): 0.77 with the bug, 0.18 fixed;
seeds + 1000: 0.76 vs 0.17.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._operator341 import random_fields_1d, relative_l2

TITLE = "Error code of DeepONetCartesianProd in deeponet.py"
LINK = "https://github.com/lululxvi/deepxde/issues/979"
EXPECTED = ("LOSS_SHAPE_MISMATCH", "LOSS_BROADCAST_OVER_BATCH")
STEPS = 400
POINTS = 64


def antiderivatives(count, seed):
    """Input functions at 32 sensors, their antiderivatives on the 64-point grid."""
    u = random_fields_1d(count, points=POINTS, seed=seed)
    s = torch.cumsum(u, dim=1) / POINTS                  # int_0^y u, y = (j + 1) / 64
    return u[:, ::2], s


def mlp(inputs, outputs):
    return nn.Sequential(nn.Linear(inputs, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(),
                         nn.Linear(64, outputs))


class DeepONet(nn.Module):
    def __init__(self, sensors=32, basis=40, pointwise=True):
        super().__init__()
        self.branch, self.trunk = mlp(sensors, basis), mlp(1, basis)
        self.bias = nn.Parameter(torch.zeros(1))
        self.pointwise = pointwise

    def forward(self, u, y):                   # u (batch, sensors), y (batch, 1)
        b, t = self.branch(u), torch.tanh(self.trunk(y))
        if self.pointwise:
            return (b * t).sum(-1, keepdim=True) + self.bias
        return torch.einsum("bi,ni->bn", b, t) + self.bias    # BUG: (batch, batch)

    def on_grid(self, u, y):                   # every function at every grid point
        return self.branch(u) @ torch.tanh(self.trunk(y)).T + self.bias


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    u, s = antiderivatives(600, seed=0)
    u_test, s_test = antiderivatives(100, seed=1)
    scale = s.std()                            # targets in units of the training spread
    s, s_test = s / scale, s_test / scale
    rng = np.random.default_rng(0)
    rows = torch.arange(600).repeat_interleave(20)
    cols = torch.from_numpy(rng.integers(0, POINTS, size=len(rows)))
    y_all = ((cols + 1).float() / POINTS)[:, None]
    s_all = s[rows, cols][:, None]
    model = DeepONet(pointwise=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(rows), steps, batch_size=64, seed=0):
            optimizer.zero_grad()
            loss = loss_fn(model(u[rows[index]], y_all[index]), s_all[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    grid = (torch.arange(1, POINTS + 1).float() / POINTS)[:, None]
    with torch.no_grad():
        mon.held_out_relative_l2 = round(relative_l2(model.on_grid(u_test, grid),
                                                     s_test).item(), 3)
    return mon
