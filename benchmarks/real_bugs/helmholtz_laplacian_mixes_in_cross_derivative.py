"""A Helmholtz PINN whose second derivatives are taken by differentiating the WHOLE input
gradient u_x = (du/dx, du/dy) with respect to (x, y) at once: the grad sums both columns,
so the "u_xx" it reads is u_xx + u_yx and "u_yy" is u_xy + u_yy. The Laplacian in the
residual is u_xx + u_yy + 2 u_xy, another equation, and the network converges to its
solution while every loss goes down.

Reported: "Helmholtz pytorch predicted problem" -
https://github.com/prateekbhustali/Physics-Informed-Neural-Networks/issues/4 (the PyTorch
Helmholtz notebook gives a bad solution "whatever i did (changing the layers or iter)"
while the TensorFlow one works; a reply: "The issue was in autograd ... It's computing the
wrong input"; another: compute u_xx from u_x[:, [0]] and u_yy from u_x[:, [1]] separately -
"The original code will mix the partial derivative into the Laplace term"). Here a tanh
MLP of (x, y) on [-1, 1]^2 solves u_xx + u_yy + u = q with u = 0 on the boundary and q
from the exact solution sin(pi x) sin(pi y); 256 random collocation points and 128
boundary points per step, Adam 1e-2. Fix: differentiate each column of u_x on its own and
keep the matching column.

Measured harm (relative L2 error against the exact solution on a 41 x 41 grid): seed 0:
3.153 vs 0.096; seeds + 1000: 3.712 vs 0.117.
"""
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._curve_fitting import relative_error

TITLE = "Helmholtz pytorch predicted problem"
LINK = "https://github.com/prateekbhustali/Physics-Informed-Neural-Networks/issues/4"
EXPECTED = ("PDE_SECOND_DERIVATIVE_TAKEN_ONCE",)
STEPS = 300
COLLOCATION = 256
WAVENUMBER = 1.0


def exact(g):
    return torch.sin(math.pi * g[:, :1]) * torch.sin(math.pi * g[:, 1:])


def laplacian(u, g, fixed):
    u_x = torch.autograd.grad(u, g, torch.ones_like(u), create_graph=True)[0]
    if fixed:
        u_xx = torch.autograd.grad(u_x[:, [0]], g, torch.ones_like(u_x[:, [0]]),
                                   create_graph=True)[0][:, [0]]
        u_yy = torch.autograd.grad(u_x[:, [1]], g, torch.ones_like(u_x[:, [1]]),
                                   create_graph=True)[0][:, [1]]
    else:                   # BUG: one grad of both columns mixes u_xy into each
        second = torch.autograd.grad(u_x, g, torch.ones_like(u_x), create_graph=True)[0]
        u_xx, u_yy = second[:, [0]], second[:, [1]]
    return u_xx + u_yy


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(),
                          nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            g = (torch.rand(COLLOCATION, 2) * 2 - 1).requires_grad_(True)
            u = model(g)
            source = (WAVENUMBER ** 2 - 2 * math.pi ** 2) * exact(g)
            residual = laplacian(u, g, fixed) + WAVENUMBER ** 2 * u - source
            side = torch.rand(64, 1) * 2 - 1
            edge = torch.randint(0, 2, (64, 1)).float() * 2 - 1
            boundary = torch.cat([torch.cat([edge, side], 1), torch.cat([side, edge], 1)])
            loss = (residual ** 2).mean() + 10 * (model(boundary) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    axis = torch.linspace(-1, 1, 41)
    grid = torch.stack(torch.meshgrid(axis, axis, indexing="ij"), -1).reshape(-1, 2)
    with torch.no_grad():
        mon.relative_error = relative_error(model(grid), exact(grid))
    return mon
