"""A physics-informed loss whose interior (equation) term is combined with its weight by
``+`` instead of ``*``: ``interior_weight + interior_loss``. The weight then shifts the
loss by a constant, which has no gradient, and the equation residual enters with weight 1
whatever was chosen. Here the weights were chosen to balance a residual whose scale is
(k pi)^2 times the solution's (interior_weight = 1 / (k pi)^4, boundary_weight = 1); with
the bug the squared residual outweighs the boundary term by about 25,000 to 1, and the
part of the solution only the boundary terms decide (the linear function u'' cannot see)
is left far from its values after the same training. The loss falls, nothing is non-finite,
and the printed total even includes the weight as a harmless-looking offset.

Reported: "Fix the small bug for PINO loss" -
https://github.com/neuraloperator/neuraloperator/pull/619 (the PoissonEqnLoss of
neuraloperator, in its tensor branch, "adds interior weights with interior loss instead of
multiplication"; merged fix: multiply). Here: u''(x) = -(k pi)^2 sin(k pi x) on [0, 1],
k = 4, with u(0) = 1 and u(1) = -1 (solution sin(k pi x) + 1 - 2x); a tanh MLP, 128 random
interior points and both boundary points a step, Adam. Fix: interior_weight *
interior_loss.

Measured (1500 steps, 401 grid points; relative L2 error against the exact solution):
seed 0, 0.90 for the bug against 0.012 for the fixed twin; seeds shifted by 1000, 2.85
against 0.006. At seed 0 the bug's error is all in the linear part the boundary terms
decide (u(0) = 2.66 and u(1) = -2.66 where 1 and -1 are asked; what is left after removing
the best linear fit from its error is 0.014).
"""
import math

import torch

import nndebug as nd
from benchmarks.real_bugs._pinn166 import derivative, relative_error, tanh_mlp

TITLE = "Fix the small bug for PINO loss"
LINK = "https://github.com/neuraloperator/neuraloperator/pull/619"
EXPECTED = ("LOSS_WEIGHT_ADDED_NOT_MULTIPLIED",)
STEPS = 1500
WAVES = 4
INTERIOR_WEIGHT = 1 / (WAVES * math.pi) ** 4
BOUNDARY_WEIGHT = 1.0
COLLOCATION = 128


def exact(x):
    return torch.sin(WAVES * math.pi * x) + 1 - 2 * x


def interior_loss(model, x):
    x = x.requires_grad_(True)
    u = model(2 * x - 1)
    u_xx = derivative(derivative(u, x), x)
    return ((u_xx + (WAVES * math.pi) ** 2 * torch.sin(WAVES * math.pi * x)) ** 2).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = tanh_mlp(1, 48, 1, layers=3)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    edges = torch.tensor([[0.0], [1.0]])
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            x = torch.rand(COLLOCATION, 1)
            boundary = ((model(2 * edges - 1) - exact(edges)) ** 2).mean()
            if fixed:
                interior = INTERIOR_WEIGHT * interior_loss(model, x)
            else:
                interior = INTERIOR_WEIGHT + interior_loss(model, x)   # BUG: + for *
            loss = interior + BOUNDARY_WEIGHT * boundary
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    grid = torch.linspace(0, 1, 401).reshape(-1, 1)
    with torch.no_grad():
        mon.relative_error = relative_error(model(2 * grid - 1), exact(grid))
    return mon
