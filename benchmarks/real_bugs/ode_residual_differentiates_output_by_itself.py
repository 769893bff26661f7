"""A first physics-informed network for dy/dt = -y, y(0) = 1, whose "dy/dt" is the gradient
of sum(prediction) with respect to the prediction itself - a tensor of ones - instead of
with respect to the time input. The residual it minimises is 1 + y, which no weight can
change through its derivative part: the network is pulled toward y = -1 by the residual
and toward 1 at t = 0 by the initial condition, and never sees the equation.

Reported: "Unable to solve a differential equation using neural network" -
https://discourse.julialang.org/t/unable-to-solve-a-differential-equation-using-neural-network/103723
(Flux: derivative = gradient(prediction -> sum(prediction), prediction)[1]; the loss "remains
at 2.0"; the answer: "You are not calculating the derivative wrt. t here ... In fact, this
gradient evaluates to all ones", then differentiate the network with respect to t; the
poster also swapped ReLU for tanh, kept here in both runs). Here the same ODE on 21 points
of [0, 2], a 1-16-16-1 tanh MLP (PyTorch: autograd.grad(y.sum(), y)), Adam 1e-2. Fix:
dy/dt = autograd.grad(y, t, ones, create_graph=True).

Measured harm (relative L2 error against exp(-t) on 201 points of [0, 2], between the
collocation points too): seed 0: 2.846 vs 0.003; seeds + 1000: 2.843 vs 0.005.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._curve_fitting import derivative, relative_error

TITLE = "Unable to solve a differential equation using neural network"
LINK = ("https://discourse.julialang.org/t/"
        "unable-to-solve-a-differential-equation-using-neural-network/103723")
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(),
                          nn.Linear(16, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    t = torch.linspace(0, 2, 21).reshape(-1, 1).requires_grad_(True)
    start = torch.zeros(1, 1)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            y = model(t)
            if fixed:
                dy_dt = derivative(y, t)
            else:       # BUG: the derivative of the prediction by itself: all ones
                dy_dt = torch.autograd.grad(y.sum(), y, create_graph=True)[0]
            loss = ((dy_dt + y) ** 2).mean() + ((model(start) - 1) ** 2).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    grid = torch.linspace(0, 2, 201).reshape(-1, 1)
    with torch.no_grad():
        mon.relative_error = relative_error(model(grid), torch.exp(-grid))
    return mon
