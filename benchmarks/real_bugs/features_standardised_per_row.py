"""Tabular features standardised along the wrong axis: each ROW (one sample) is centred and
scaled by its own mean and std over the features, instead of each COLUMN (one feature) by
its statistics over the samples. With features in different units the largest column
dominates every row's mean and std, the small columns are squashed into a sliver around
one value, and what is left of them is mixed with the large one.

Reported: "Bug fix related to #19" - https://github.com/EpistasisLab/scikit-rebate/pull/20
("The `pre_normalize` function was normalizing based on rows rather than columns. This
change fixes that."). Here a house-price-like table (a floor area in square feet, rooms,
age in years, distance in km, a lot size in square metres, a rating, a tax in dollars,
a ratio), the price a nonlinear function of all of them, and an MLP regressor trained on
the rows standardised one by one. Fix: the columns standardised with the training set's
per-feature mean and std.

Measured (400 steps, 500 held-out rows): the bug's R^2 is 0.14, the fixed twin's 0.98.

Named as INPUT_ROWS_STANDARDISED (every row has mean 0 and std 1 over its features, most of
the variance lies between the columns' levels, and learning was poor); missed as it came.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, train_watched

TITLE = "Bug fix related to #19"
LINK = "https://github.com/EpistasisLab/scikit-rebate/pull/20"
EXPECTED = ("INPUT_ROWS_STANDARDISED",)
STEPS = 400
ROWS, HELD_OUT = 2500, 500
# (centre, spread) of each column, in its own unit
COLUMNS = ((1800.0, 600.0), (3.5, 1.2), (30.0, 15.0), (8.0, 5.0),
           (600.0, 250.0), (6.0, 2.0), (4000.0, 1500.0), (0.5, 0.2))


def table(seed=0):
    """Features in their own units and a standardised price."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((ROWS, len(COLUMNS)))
    centre, spread = np.array(COLUMNS).T
    x = np.abs(centre + spread * z)
    price = (z[:, 0] + 0.6 * z[:, 1] - 0.5 * z[:, 2] - 0.7 * np.tanh(z[:, 3])
             + 0.3 * z[:, 4] + 0.4 * z[:, 5] * z[:, 0] + 0.3 * z[:, 6] - 0.4 * z[:, 7] ** 2)
    price = price + 0.1 * rng.standard_normal(ROWS)
    price = (price - price.mean()) / price.std()
    return torch.tensor(x, dtype=torch.float32), torch.tensor(price, dtype=torch.float32)


def standardised(x, fixed):
    if fixed:   # each column by the training rows' statistics
        train = x[:-HELD_OUT]
        return (x - train.mean(0)) / train.std(0)
    # BUG: each row by its own mean and std over the features
    return (x - x.mean(1, keepdim=True)) / x.std(1, keepdim=True)


def r_squared(prediction, target):
    return 1 - float(((prediction - target) ** 2).mean() / target.var(unbiased=False))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = table()
    x = standardised(x, fixed)
    model = nn.Sequential(nn.Linear(len(COLUMNS), 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, optimizer, lambda out, target: ((out[:, 0] - target) ** 2).mean(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        mon.r_squared = round(r_squared(model(x[-HELD_OUT:])[:, 0], y[-HELD_OUT:]), 3)
    return mon
