"""A physics-informed network whose loss is called with its two point sets swapped: the
loss is written ``loss(x_bc, x_pde)`` and called ``loss(x_pde, x_bc)``. The boundary
condition u(-pi) = 0 is then imposed at every collocation point of the interior, and the
differential equation only at the single boundary point. Both terms are still squared
residuals that fall to nearly zero: the network learns u = 0 on the whole interval (with
slope -1 at x = -pi), nothing is non-finite, and the loss curve looks like a converged PINN.

Reported: "An error occurs in SimpleODE" - https://github.com/jdtoscano94/NABLA-SciML/issues/10
(the reporter found that in the SimpleODE PINN notebook "the values x_BC and x_PDE are
passed in the wrong places" - the loss is defined as loss(x_BC, x_PDE) and called as
loss(x_PDE, x_BC) - and that the notebook only got away with it because its boundary
function was the exact solution sin(x) itself, not the boundary value; the fix is to pass
the boundary points first). Here a tanh MLP solves u'(x) = cos(x) on [-pi, pi] with
u(-pi) = 0 (solution sin x; the interval centred, as network inputs usually are), the
boundary target given as the boundary value (zero), 64 random collocation points per step,
Adam. Fix: call the loss with the boundary points first.

Measured (1500 steps, 401 grid points on [-pi, pi]; relative L2 error against sin x): seed
0, 0.99 for the bug against 0.004 for the fixed twin; seeds shifted by 1000, 0.99 against
0.006.
"""
import math

import torch

import nndebug as nd
from benchmarks.real_bugs._pinn166 import derivative, relative_error, tanh_mlp

TITLE = "An error occurs in SimpleODE"
LINK = "https://github.com/jdtoscano94/NABLA-SciML/issues/10"
EXPECTED = ("PDE_POINT_SETS_SWAPPED",)
STEPS = 1500
COLLOCATION = 64


def pinn_loss(model, x_bc, x_pde):
    """Boundary term at x_bc (u = 0 there) plus the ODE residual u' - cos x at x_pde."""
    boundary = (model(x_bc) ** 2).mean()
    x_pde = x_pde.clone().requires_grad_(True)
    u = model(x_pde)
    residual = derivative(u, x_pde) - torch.cos(x_pde)
    return boundary + (residual ** 2).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = tanh_mlp(1, 32, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    x_bc = torch.full((1, 1), -math.pi)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            x_pde = (torch.rand(COLLOCATION, 1) * 2 - 1) * math.pi
            if fixed:
                loss = pinn_loss(model, x_bc, x_pde)
            else:
                loss = pinn_loss(model, x_pde, x_bc)     # BUG: the two point sets swapped
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    grid = torch.linspace(-math.pi, math.pi, 401).reshape(-1, 1)
    with torch.no_grad():
        mon.relative_error = relative_error(model(grid), torch.sin(grid))
    return mon
