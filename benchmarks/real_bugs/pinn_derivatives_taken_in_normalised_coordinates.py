"""A physics-informed network whose inputs are normalised to [-1, 1] before they reach it,
and whose PDE residual is then built from derivatives with respect to the normalised
coordinates instead of the physical ones. x' = 2x/L - 1 and t' = 2t/T - 1 scale du/dx by
L/2 and du/dt by T/2, so the residual u_t' - nu u_x'x' is the heat equation with diffusivity
nu L^2 / (2T), not nu: on a rod of length 4 over 2 time units the network solves a rod that
diffuses four times faster. Every loss term still goes to nearly zero - the network
satisfies an equation exactly, only not the one stated - and nothing is non-finite.

Reported: "一点小疑问" ("a small question") -
https://github.com/Shengfeng233/PINN-for-NS-equation/issues/7 (a reader of the
Navier-Stokes PINN code: the code normalises the inputs, but normalising them changes the
form of the equation, and the code does not reflect that - is the change negligible?). It
is not: the derivatives the residual needs are those with respect to the physical
coordinates, so either differentiate with respect to x and t with the normalisation inside
the graph, or rescale each derivative by the chain rule (2/L per x, 2/T per t). Here: u_t =
0.5 u_xx on x in [0, 4], t in [0, 2], u(x, 0) = sin(pi x / 4), u(0, t) = u(4, t) = 0
(solution exp(-0.5 (pi/4)^2 t) sin(pi x / 4)); a tanh MLP of the normalised (x', t'); 128
random collocation points, 32 initial and 32 boundary points a step, Adam. Fix: x and t
are the leaves the derivatives are taken for; the network reads them normalised.

Measured (1500 steps, a 41 x 41 grid; relative L2 error against the exact solution): seed
0, 0.52 for the bug against 0.002 for the fixed twin; seeds shifted by 1000, 0.52 against
0.002.
"""
import math

import torch

import nndebug as nd
from benchmarks.real_bugs._pinn166 import derivative, relative_error, tanh_mlp

TITLE = "一点小疑问"
LINK = "https://github.com/Shengfeng233/PINN-for-NS-equation/issues/7"
EXPECTED = ("PDE_DERIVATIVE_IN_NORMALISED_COORDINATES",)
STEPS = 1500
LENGTH, DURATION, DIFFUSIVITY = 4.0, 2.0, 0.5
COLLOCATION = 128


def scale(x, t):
    return 2 * x / LENGTH - 1, 2 * t / DURATION - 1


def exact(x, t):
    rate = DIFFUSIVITY * (math.pi / LENGTH) ** 2
    return torch.exp(-rate * t) * torch.sin(math.pi * x / LENGTH)


def residual(model, x, t, fixed):
    if fixed:
        x, t = x.requires_grad_(True), t.requires_grad_(True)
        xs, ts = scale(x, t)
        u = model(torch.cat([xs, ts], dim=1))
        u_x = derivative(u, x)
        return derivative(u, t) - DIFFUSIVITY * derivative(u_x, x)
    xs, ts = [c.requires_grad_(True) for c in scale(x, t)]   # BUG: the normalised inputs
    u = model(torch.cat([xs, ts], dim=1))                   # are the leaves differentiated
    u_x = derivative(u, xs)
    return derivative(u, ts) - DIFFUSIVITY * derivative(u_x, xs)


def predict(model, x, t):
    return model(torch.cat(scale(x, t), dim=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = tanh_mlp(2, 32, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            x = torch.rand(COLLOCATION, 1) * LENGTH
            t = torch.rand(COLLOCATION, 1) * DURATION
            x0 = torch.rand(32, 1) * LENGTH
            tb = torch.rand(32, 1) * DURATION
            xb = torch.randint(0, 2, (32, 1)).float() * LENGTH
            loss = (residual(model, x, t, fixed) ** 2).mean() \
                + ((predict(model, x0, torch.zeros_like(x0)) - exact(x0, 0 * x0)) ** 2).mean() \
                + (predict(model, xb, tb) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    gx, gt = torch.meshgrid(torch.linspace(0, LENGTH, 41), torch.linspace(0, DURATION, 41),
                            indexing="ij")
    gx, gt = gx.reshape(-1, 1), gt.reshape(-1, 1)
    with torch.no_grad():
        mon.relative_error = relative_error(predict(model, gx, gt), exact(gx, gt))
    return mon
