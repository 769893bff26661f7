"""A daily demand forecaster is given, beside the last week of demand, the item's mean
demand "by month", computed with a groupby over the whole calendar month: the value for
day t averages every day of t's month, including t itself and the days after it. The
month's level, which the forecaster should have to guess from the past, is handed to it;
training error falls well below what a real forecast can reach, and at forecast time the
month's mean does not exist yet.

Reported: "seems to be you have forecasting-with-panel-datasets bug: data leaking" -
https://github.com/microsoft/FLAML/issues/1172 (the example's feature
``data.groupby(["time_idx", "sku"]).volume.transform("mean")`` averages by month, "then
for example for beginning of month date values prediction you use values from end of
month"). Here a demand series whose level jumps every 30 days plus weekly seasonality and
noise, an MLP on the 7 last days and the month feature. Measured (seed 0, 400 steps):
mean training loss of the last 20 steps 0.12 against 0.31 for the fixed twin.
Fix: the feature is the mean of the previous month (known on every day of this one).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = "seems to be you have forecasting-with-panel-datasets bug: data leaking"
LINK = "https://github.com/microsoft/FLAML/issues/1172"
EXPECTED = ("FEATURE_HOLDS_TARGET_VALUES", "TARGETS_IN_INPUTS")
STEPS = 400
LAGS = 7
MONTH = 30


def demand(months=100, seed=0):
    """A level drawn afresh each month, weekly seasonality, daily noise."""
    g = torch.Generator().manual_seed(seed)
    level = torch.randn(months, generator=g).repeat_interleave(MONTH)
    day = torch.arange(months * MONTH, dtype=torch.float32)
    weekly = 0.3 * torch.sin(2 * torch.pi * day / 7)
    return level + weekly + 0.3 * torch.randn(len(day), generator=g)


def table(previous_month):
    """Rows at day t: the LAGS last days and the month feature; target demand[t]."""
    y = demand()
    monthly = y.reshape(-1, MONTH).mean(1)
    t = torch.arange(MONTH, len(y))
    month = t // MONTH - (1 if previous_month else 0)
    lags = torch.stack([y[t - k] for k in range(1, LAGS + 1)], dim=1)
    return torch.cat([lags, monthly[month, None]], dim=1), y[t]


def batches(x, y, steps, batch_size=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        rows = torch.randint(0, len(x), (batch_size,), generator=g)
        yield x[rows], y[rows]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    # BUG when not fixed: the mean of day t's own month, t and the days after it included
    x, y = table(previous_month=fixed)
    model = nn.Sequential(nn.Linear(LAGS + 1, 64), nn.ReLU(), nn.Linear(64, 1), nn.Flatten(0))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.functional.mse_loss, batches(x, y, steps), **watch)
