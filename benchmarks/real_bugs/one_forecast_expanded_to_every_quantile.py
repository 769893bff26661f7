"""A forecaster asked for three quantiles (0.05, 0.5, 0.95) whose last layer makes ONE
value per row, then ``.unsqueeze(-1).expand(-1, 3)`` copies it into the three quantile
slots. The pinball loss over the three levels is one loss on one number: the copy settles
at the median, the loss falls, and the 0.05 and 0.95 "quantiles" are the same line, so
the 90% band between them has no width and holds no target.

Reported: "[BUG] Fix quantile support in `Samformer`" -
https://github.com/sktime/pytorch-forecasting/pull/2357 ("`.expand` is just replicating
that single quantile to `n_quantile` times"; "each quantile should have its own parameters
and receive its own gradient"). Here a torch MLP on a heteroscedastic synthetic table
(4 features, 3,000 rows) in place of the Samformer's linear forecaster, the same
mean pinball loss over the levels, Adam, 300 steps of 64 rows.

Fix: the last layer outputs one value per quantile (``nn.Linear(64, 3)``), no expand.

Measured (held-out coverage of the band between the 0.05 and 0.95 outputs, 2,000 rows):
0.0 with the bug, 0.874 fixed; seeds + 1000: 0.0 vs 0.907.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._pi331 import coverage, mlp, pinball, table

TITLE = "[BUG] Fix quantile support in `Samformer`"
LINK = "https://github.com/sktime/pytorch-forecasting/pull/2357"
EXPECTED = ("MODULE_REPEATED_IN_CONTAINER",)
STEPS = 300
LEVELS = torch.tensor([0.05, 0.5, 0.95])


class QuantileForecaster(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.net = mlp(len(LEVELS) if fixed else 1)

    def forward(self, x):
        out = self.net(x)
        if self.fixed:
            return out
        # BUG: one forecast copied into every quantile slot
        return out.squeeze(-1).unsqueeze(-1).expand(-1, len(LEVELS))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = table(3000, seed=0)
    model = QuantileForecaster(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    rng = np.random.default_rng(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.from_numpy(rng.integers(0, len(x), 64))
            optimizer.zero_grad()
            loss = pinball(model(x[rows]), y[rows], LEVELS)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    x_test, y_test = table(2000, seed=2)
    with torch.no_grad():
        band = model(x_test)
    mon.held_out_coverage = coverage(band[:, 0], band[:, 2], y_test)
    return mon
