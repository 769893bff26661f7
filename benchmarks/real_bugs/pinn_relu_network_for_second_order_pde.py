"""A physics-informed network with ReLU activations trained on a second-order equation: a
ReLU network is piecewise linear in its input, so the second derivative autograd returns
for it is exactly zero at every collocation point. The PDE residual u'' - f then reads
-f whatever the weights are, its gradient with respect to the weights is zero, and only
the boundary terms train: the network learns u(0) = u(1) = 0 and nothing of the equation.

Reported: "Convergence issue on Navier-Stokes equation" -
https://github.com/lululxvi/deepxde/issues/80 (a PINN on the Navier-Stokes equations whose
residuals would not go down; the maintainer: "Don't use relu, which is not second order
differentiable. Use smooth activations, e.g., tanh."; the reporter: "Thanks a lot for your
recommendations. They help out a lot. Getting quite good results now."). Here a PINN solves
the 1-D Poisson problem u''(x) = -pi^2 sin(pi x) on [0, 1], u(0) = u(1) = 0 (solution
sin(pi x)), with 64 random collocation points per step and torch.autograd.grad(...,
create_graph=True) twice for u''. Fix: tanh activations.

Measured (1500 steps, 201 grid points): the relative L2 error against sin(pi x) is 1.00
for the bug (its u'' is 0.0 everywhere) and 0.001 for the fixed twin.
"""
import math

import torch
from torch import nn

import nndebug as nd

TITLE = "Convergence issue on Navier-Stokes equation"
LINK = "https://github.com/lululxvi/deepxde/issues/80"
EXPECTED = ("PDE_DERIVATIVE_OF_PIECEWISE_LINEAR_NETWORK",)
STEPS = 1500
COLLOCATION = 64


def network(activation):
    return nn.Sequential(nn.Linear(1, 32), activation(), nn.Linear(32, 32), activation(),
                         nn.Linear(32, 1))


def second_derivative(u, x):
    du, = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)
    d2u, = torch.autograd.grad(du, x, torch.ones_like(du), create_graph=True)
    return d2u


def source(x):
    return -math.pi ** 2 * torch.sin(math.pi * x)


def relative_error(model):
    grid = torch.linspace(0, 1, 201).unsqueeze(1)
    with torch.no_grad():
        exact = torch.sin(math.pi * grid)
        return round(float((model(grid) - exact).norm() / exact.norm()), 3)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = network(nn.Tanh if fixed else nn.ReLU)     # BUG (fixed=False): ReLU
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    ends = torch.tensor([[0.0], [1.0]])
    generator = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            x = torch.rand(COLLOCATION, 1, generator=generator).requires_grad_(True)
            residual = second_derivative(model(x), x) - source(x)
            loss = (residual ** 2).mean() + 10 * (model(ends) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.relative_error = relative_error(model)
    return mon
