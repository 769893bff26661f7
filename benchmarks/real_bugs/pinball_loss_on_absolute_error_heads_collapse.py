"""Three quantile heads (0.05, 0.5, 0.95) trained with a pinball loss written on the
ABSOLUTE error: ``max(q * |y_hat - y|, (q - 1) * |y_hat - y|)``. The second branch is
never the larger, so every head's loss is just ``q * |error|``, a scaled absolute error
whose minimiser is the median for every q. All three heads learn the median, the loss
falls as usual, and the "90%" band between the outer heads has almost no width.

Reported: "correct calculation of quantile loss" -
https://github.com/Nixtla/utilsforecast/pull/63 ("replaces `max(q * abs(y_hat - y), (q - 1)
* abs(y_hat - y))` with `max(q * (y - y_hat), (q - 1) * (y - y_hat))`"; there it was the
evaluation metric). Here the same formula is the training loss of a three-head torch MLP
on a heteroscedastic synthetic table (4 features, 3,000 rows), Adam, 300 steps of 64 rows.

Fix: the signed error ``y - y_hat`` inside the max.

Measured (held-out coverage of the band between the 0.05 and 0.95 heads, 2,000 rows):
0.012 with the bug, 0.874 fixed; seeds + 1000: 0.021 vs 0.907.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._pi331 import coverage, mlp, pinball, table

TITLE = "correct calculation of quantile loss"
LINK = "https://github.com/Nixtla/utilsforecast/pull/63"
EXPECTED = ("PINBALL_LOSS_SYMMETRIC",)
STEPS = 300
LEVELS = torch.tensor([0.05, 0.5, 0.95])


def absolute_pinball(predicted, y, levels):
    error = (predicted - y.unsqueeze(1)).abs()
    return torch.maximum(levels * error, (levels - 1) * error).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = table(3000, seed=0)
    model = mlp(len(LEVELS))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    rng = np.random.default_rng(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.from_numpy(rng.integers(0, len(x), 64))
            optimizer.zero_grad()
            predicted = model(x[rows])
            if fixed:
                loss = pinball(predicted, y[rows], LEVELS)
            else:           # BUG: |error| makes every level's loss q * |error|
                loss = absolute_pinball(predicted, y[rows], LEVELS)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    x_test, y_test = table(2000, seed=2)
    with torch.no_grad():
        band = model(x_test)
    mon.held_out_coverage = coverage(band[:, 0], band[:, 2], y_test)
    return mon
