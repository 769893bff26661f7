"""A hybrid neural ODE - a learnable linear "physics" matrix plus a small network
correction - solved with an adjoint-style solver that returns gradients only for the
parameters of the ODE function module it is given. The physics matrix is an
``nn.Parameter`` of the outer model, read by the ODE function through a reference, not one
of the function module's own parameters: the solver's backward pass never differentiates
with respect to it, so it gets no gradient and stays at its initial value (zeros), and the
bounded network correction has to carry the whole dynamics alone. The loss still falls
(the correction fits what it can), nothing is non-finite, and nothing errors.

Reported: "Follow up on issue #129 passing arguments into odeint" -
https://github.com/rtqichen/torchdiffeq/issues/178 (a parameter declared outside the ODE
function and handed to odeint_adjoint "does not attach ... in the computational graph and
the gradients ... are all zero"; the maintainer's advice in the thread and in
https://github.com/rtqichen/torchdiffeq/issues/246: with odeint gradients reach external
tensors, but "odeint_adjoint will only do it for" the function module's own parameters -
keep every learnable tensor inside the ODE function module (or pass it as adjoint_params)).
Here: a damped oscillator x'' + 0.3 x' + 4 x = 0 as a 2-D state; the field is y A^T +
0.5 tanh-MLP(y) with A (2 x 2, zeros at the start) held by the outer model; a solver that,
like odeint_adjoint, recomputes each fixed RK4 step in the backward pass and
differentiates it for the state and the tensors it was given
(benchmarks/real_bugs/_pinn166.py); 32 trajectories of 20 steps of 0.1 a step from random
initial states, Adam. Fix: A handed to the solver with the function's parameters.

Measured (600 steps; 256 held-out trajectories from new initial states over twice the
training horizon; relative L2 error): seed 0, 1.11 for the bug (A still zero) against 0.054
for the fixed twin; seeds shifted by 1000, 1.11 against 0.14. The bug run's only code-level
trace is the outer parameter's missing gradient.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._pinn166 import odeint_lean, relative_error, tanh_mlp

TITLE = "Follow up on issue #129 passing arguments into odeint"
LINK = "https://github.com/rtqichen/torchdiffeq/issues/178"
EXPECTED = ("NO_GRADIENT",)
STEPS = 600
STEP, HORIZON = 0.1, 20
TRUE_FIELD = torch.tensor([[0.0, 1.0], [-4.0, -0.3]])


class Correction(nn.Module):
    """The ODE function module: its own parameters are the network's; A is read from the
    outer model through the reference it was given."""

    def __init__(self, physics):
        super().__init__()
        self.net = tanh_mlp(2, 32, 2)
        self.physics = [physics]         # a reference, not a registered parameter

    def forward(self, y):
        return y @ self.physics[0].T + 0.5 * torch.tanh(self.net(y))


class HybridODE(nn.Module):
    def __init__(self):
        super().__init__()
        self.physics = nn.Parameter(torch.zeros(2, 2))
        self.func = Correction(self.physics)

    def forward(self, y0, steps, fixed):
        params = list(self.func.parameters())
        if fixed:
            params.append(self.physics)      # every tensor the field reads
        return odeint_lean(self.func, y0, STEP, steps, params)   # BUG (unfixed): A left out


def trajectories(n, steps):
    y0 = torch.rand(n, 2) * 4 - 2
    return y0, odeint_lean(lambda y: y @ TRUE_FIELD.T, y0, STEP, steps, [])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = HybridODE()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            y0, observed = trajectories(32, HORIZON)
            loss = ((model(y0, HORIZON, fixed) - observed) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    y0, observed = trajectories(256, 2 * HORIZON)
    with torch.no_grad():
        mon.relative_error = relative_error(model(y0, 2 * HORIZON, fixed), observed)
    return mon
