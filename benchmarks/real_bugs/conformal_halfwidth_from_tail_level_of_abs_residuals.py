"""Split-conformal intervals around an MSE regressor whose half-width is read at the wrong
level: the residuals are made ABSOLUTE, and then their ``(1 - coverage) / 2`` quantile is
taken - the lower-tail level of a two-sided interval from SIGNED residuals. For a 90%
band that is the 5th percentile of |residual|, so the "90%" intervals are a sliver and
cover about one held-out target in twenty. Training is an ordinary, healthy regression
fit; the mistake is in how its calibration residuals are turned into an interval.

Reported: "[BUG] ConformalIntervals method="empirical_residual" uses the (1-coverage)/2
quantile of absolute residuals, giving ~0.08 coverage at coverage=0.9" -
https://github.com/sktime/sktime/issues/10757 ("Applied to absolute residuals the level
should be `coverage` itself"). Here a torch MLP is fitted by MSE to a heteroscedastic
synthetic table (4 features, 3,000 training rows), Adam, 300 steps of 64 rows; 1,000
further rows calibrate the interval, 2,000 more test it.

Fix: the half-width is the ``coverage`` quantile of the calibration rows' absolute
residuals.

Measured (held-out coverage of the 90% interval): 0.041 with the bug, 0.901 fixed;
seeds + 1000: 0.052 vs 0.883.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._pi331 import coverage, mlp, table

TITLE = ("[BUG] ConformalIntervals method=\"empirical_residual\" uses the (1-coverage)/2 "
         "quantile of absolute residuals, giving ~0.08 coverage at coverage=0.9")
LINK = "https://github.com/sktime/sktime/issues/10757"
EXPECTED = ("INTERVAL_CALIBRATION_LEVEL_WRONG",)
STEPS = 300
COVERAGE = 0.9


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = table(3000, seed=0)
    x_cal, y_cal = table(1000, seed=1)
    model = mlp(1)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    rng = np.random.default_rng(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.from_numpy(rng.integers(0, len(x), 64))
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x[rows]).squeeze(1), y[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        residuals = (y_cal - model(x_cal).squeeze(1)).abs().numpy()
        # BUG (fixed=False): the signed-residual tail level applied to absolute residuals
        level = COVERAGE if fixed else (1 - COVERAGE) / 2
        half_width = float(np.quantile(residuals, level))
        x_test, y_test = table(2000, seed=2)
        centre = model(x_test).squeeze(1)
    mon.held_out_coverage = coverage(centre - half_width, centre + half_width, y_test)
    return mon
