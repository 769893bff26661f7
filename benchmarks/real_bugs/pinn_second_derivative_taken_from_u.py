"""A physics-informed network whose "second derivative" u_xx is the gradient of u itself,
not of u_x: torch.autograd.grad(u, x) is the first derivative, so the residual
u_t - nu * u_xx the network is trained on is u_t - nu * u_x, an advection equation, and the
network converges to the solution of that other equation while every loss goes down.

Reported: "The derivative in the code" - https://github.com/AdityaLab/pinnsformer/issues/2
("the second-order derivative `u_xx` is calculated directly from `u` with respect to
`x_train` ... to obtain the second-order derivative `u_xx`, we should first compute the
first-order derivative `u_x` with respect to `x_train`, and then differentiate `u_x` with
respect to `x_train` again"; a maintainer: "For computing the 2nd derivative, you are
correct."). Here a PINN (tanh MLP of (x, t)) solves the heat equation u_t = 0.2 u_xx on
[0, 1] x [0, 1] with u(x, 0) = sin(pi x) and u(0, t) = u(1, t) = 0 (solution
exp(-0.2 pi^2 t) sin(pi x)), 128 random collocation points per step. Fix: differentiate
u_x, not u, for u_xx.

Measured (1200 steps, a 41 x 41 grid): the relative L2 error against the exact solution
is 1.15 for the bug and 0.013 for the fixed twin.
"""
import math

import torch
from torch import nn

import nndebug as nd

TITLE = "The derivative in the code"
LINK = "https://github.com/AdityaLab/pinnsformer/issues/2"
EXPECTED = ("PDE_SECOND_DERIVATIVE_TAKEN_ONCE",)
STEPS = 1200
COLLOCATION = 128
DIFFUSIVITY = 0.2


class HeatNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(),
                                 nn.Linear(32, 1))

    def forward(self, x, t):
        return self.net(torch.cat([x, t], dim=1))


def derivative(y, x):
    return torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)[0]


def residual(model, x, t, fixed):
    u = model(x, t)
    u_t, u_x = derivative(u, t), derivative(u, x)
    u_xx = derivative(u_x, x) if fixed else derivative(u, x)    # BUG: the gradient of u
    return u_t - DIFFUSIVITY * u_xx


def exact(x, t):
    return torch.exp(-DIFFUSIVITY * math.pi ** 2 * t) * torch.sin(math.pi * x)


def relative_error(model):
    axis = torch.linspace(0, 1, 41)
    x, t = [g.reshape(-1, 1) for g in torch.meshgrid(axis, axis, indexing="ij")]
    with torch.no_grad():
        truth = exact(x, t)
        return round(float((model(x, t) - truth).norm() / truth.norm()), 3)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = HeatNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    generator = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            x = torch.rand(COLLOCATION, 1, generator=generator).requires_grad_(True)
            t = torch.rand(COLLOCATION, 1, generator=generator).requires_grad_(True)
            edge = torch.rand(32, 1, generator=generator)
            start, side = torch.zeros_like(edge), torch.randint(0, 2, edge.shape,
                                                                generator=generator).float()
            loss = (residual(model, x, t, fixed) ** 2).mean() \
                + ((model(edge, start) - torch.sin(math.pi * edge)) ** 2).mean() \
                + (model(side, edge) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.relative_error = relative_error(model)
    return mon
