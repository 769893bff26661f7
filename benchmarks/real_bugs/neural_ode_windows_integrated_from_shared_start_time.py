"""A neural ODE of a forced (time-dependent) system trained on windows cut from
trajectories at random start times, while the solver integrates every window on the same
time stamps starting at t = 0. The vector field reads the time, so each window is
integrated under the forcing of another moment than the one it was recorded at: the
network is asked to explain the same elapsed time with forcings of every phase, fits
their average, and learns dynamics the real system never has. The windows' fit still
improves (the decay part is learnable), nothing is non-finite, and the loss just settles
higher.

Reported: "Tried to convert the latent_ode code to run on one dimension of the spiral." -
https://github.com/rtqichen/torchdiffeq/issues/91 (a user's latent ODE on one coordinate of
the spirals learned the curve "the opposite way"; a maintainer found the main problem: the
example integrates every trajectory on the same sample times (samp_ts), which is fine when
only the spacing of observations matters, but "you shouldn't assume that all data entries
in the batch were generated from the same starting time ... integrate each entry based on
its queried timestamps"). Here: the forced decay dx/dt = -x + 2 sin t (solution known in
closed form); windows of 8 observations 0.25 apart starting at t0 ~ U[0, 2 pi) from
x0 ~ U[-2, 2]; the vector field is a tanh MLP of (x, sin t, cos t), integrated with fixed-
step RK4 (benchmarks/real_bugs/_pinn166.py), 64 windows a step, Adam. Fix: integrate each
window from its own start time t0.

Measured (600 steps; 256 held-out windows, each predicted the way its run integrates;
relative L2 error of the predicted trajectories): seed 0, 0.87 for the bug against 0.016 for
the fixed twin; seeds shifted by 1000, 0.84 against 0.018.
"""
import math

import torch

import nndebug as nd
from benchmarks.real_bugs._pinn166 import relative_error, rk4, tanh_mlp

TITLE = "Tried to convert the latent_ode code to run on one dimension of the spiral."
LINK = "https://github.com/rtqichen/torchdiffeq/issues/91"
EXPECTED = ("ODE_WINDOWS_SHARE_ONE_CLOCK",)
STEPS = 600
BATCH = 64
OBSERVATIONS = 8
SPACING = 0.25


def truth(x0, t0, steps=OBSERVATIONS):
    """x at t0 + k * SPACING, k = 1..steps, of dx/dt = -x + 2 sin t: (steps, B, 1)."""
    elapsed = SPACING * torch.arange(1, steps + 1).reshape(-1, 1, 1)
    t = t0 + elapsed
    particular = lambda s: torch.sin(s) - torch.cos(s)
    return (x0 - particular(t0)) * torch.exp(-elapsed) + particular(t)


def windows(n):
    t0 = torch.rand(n, 1) * 2 * math.pi
    x0 = torch.rand(n, 1) * 4 - 2
    return x0, t0, truth(x0, t0)


class Field(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = tanh_mlp(3, 32, 1)

    def forward(self, x, t):
        return self.net(torch.cat([x, torch.sin(t), torch.cos(t)], dim=1))


def predict(field, x0, t0, fixed):
    start = t0 if fixed else torch.zeros_like(t0)     # BUG: every window starts at t = 0
    return rk4(field, x0, start, SPACING, OBSERVATIONS)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    field = Field()
    optimizer = torch.optim.Adam(field.parameters(), lr=3e-3)
    with nd.watch(field, optimizer, **watch) as mon:
        for _ in range(steps):
            x0, t0, observed = windows(BATCH)
            loss = ((predict(field, x0, t0, fixed) - observed) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    x0, t0, observed = windows(256)
    with torch.no_grad():
        mon.relative_error = relative_error(predict(field, x0, t0, fixed), observed)
    return mon
