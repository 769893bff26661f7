"""Two quantile heads meant as a 90% prediction interval, their pinball levels built from
a miscoverage ``alpha`` as ``alpha / 2`` and ``1 - alpha / 2``, but given the COVERAGE
(0.9) where alpha (0.1) belongs: the heads are trained at the 0.45 and 0.55 quantiles.
Each head fits its level perfectly well and the pinball loss falls as usual, but the
"90%" band is a thin strip around the median that holds about one target in ten.

Reported: "[BUG] `ARIMA`, `ThetaForecaster`, `AutoETS`: `predict_interval` &
`predict_coverage` give counterintuitive results" - https://github.com/sktime/sktime/issues/2275
(fixed in PR #2281: "`ARIMA.predict_interval` was passing `coverage` as `alpha`, where
`alpha` in `ARIMA` is in fact `1-coverage`"). Here the same slip feeds the levels of a
two-head torch MLP trained with a pinball loss on a heteroscedastic synthetic table
(4 features, 3,000 rows), Adam, 300 steps of 64 rows.

Fix: pass alpha = 1 - coverage (0.1): the heads learn the 0.05 and 0.95 quantiles.

Measured (held-out coverage of the 90% band, 2,000 rows): 0.090 with the bug, 0.866
fixed; seeds + 1000: 0.104 vs 0.898.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._pi331 import coverage, mlp, pinball, table

TITLE = ("[BUG] `ARIMA`, `ThetaForecaster`, `AutoETS`: `predict_interval` & "
         "`predict_coverage` give counterintuitive results")
LINK = "https://github.com/sktime/sktime/issues/2275"
EXPECTED = ("QUANTILE_LEVELS_WRONG",)
STEPS = 300
COVERAGE = 0.9


def interval_levels(alpha):
    """The lower and upper pinball levels of a (1 - alpha) interval."""
    return torch.tensor([alpha / 2, 1 - alpha / 2])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = table(3000, seed=0)
    # BUG (fixed=False): the coverage is passed where the miscoverage alpha belongs
    levels = interval_levels(1 - COVERAGE if fixed else COVERAGE)
    model = mlp(2)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    rng = np.random.default_rng(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.from_numpy(rng.integers(0, len(x), 64))
            optimizer.zero_grad()
            loss = pinball(model(x[rows]), y[rows], levels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    x_test, y_test = table(2000, seed=2)
    with torch.no_grad():
        band = model(x_test)
    lower, upper = band.min(1).values, band.max(1).values
    mon.held_out_coverage = coverage(lower, upper, y_test)
    return mon
