"""A direct forecaster asked for the value HORIZON steps after the forecast date is
trained on lags of the target counted from the value it predicts (lags 1..8): every
one of them lies between the forecast date and the target, so it is unknown when the
forecast is made. Training error is small because lag 1 is nearly the answer; at
forecast time those lags do not exist (filled with the last known value, the model's
error is several times that of a model trained on the lags it will really have).

Reported: "Bug in R1 feature engineering process" -
https://github.com/microsoft/finnts/issues/55 (labelled a bug: "Target lags are not
working correctly. Lags are created for periods less than forecast horizon."). Here a
noisy sum of two cycles, horizon 12, an MLP on 8 lags. Measured (seed 0, 400 steps):
final training loss 0.068 against 0.25 for the fixed twin; on the real forecast (the
unknown lags forward-filled with the last known value) the bug's model errs 1.51 against
the twin's 0.25. Fix: the lags start at the horizon (lags 12..19).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = "Bug in R1 feature engineering process"
LINK = "https://github.com/microsoft/finnts/issues/55"
EXPECTED = ("LAGS_INSIDE_FORECAST_HORIZON",)
STEPS = 400
HORIZON = 12
LAGS = 8


def series(length=3000, seed=0):
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length, dtype=torch.float32)
    return (torch.sin(2 * torch.pi * t / 24) + 0.5 * torch.sin(2 * torch.pi * t / 60)
            + 0.2 * torch.randn(length, generator=g))


def lagged_table(y, first_lag):
    """Rows of the target's lags first_lag .. first_lag + LAGS - 1 and the target y[t]."""
    t = torch.arange(HORIZON + LAGS, len(y))
    lags = torch.stack([y[t - first_lag - k] for k in range(LAGS)], dim=1)
    return lags, y[t]


def batches(x, y, steps, batch_size=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        rows = torch.randint(0, len(x), (batch_size,), generator=g)
        yield x[rows], y[rows]


def forecast_error(model, fixed):
    """Squared error of a real forecast: lags closer than HORIZON are not known then, so
    (as a forecasting pipeline does) they hold the last known value y[t - HORIZON]."""
    y = series(seed=1)
    x, target = lagged_table(y, HORIZON if fixed else 1)
    if not fixed:
        t = torch.arange(HORIZON + LAGS, len(y))
        known = torch.arange(LAGS) + 1 >= HORIZON
        x = torch.where(known, x, y[t - HORIZON][:, None])
    with torch.no_grad():
        return float(nn.functional.mse_loss(model(x), target))


def build():
    return nn.Sequential(nn.Linear(LAGS, 64), nn.ReLU(), nn.Linear(64, 1), nn.Flatten(0))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    # BUG when not fixed: lags 1..8 of a value forecast 12 steps ahead
    x, y = lagged_table(series(), HORIZON if fixed else 1)
    model = build()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.functional.mse_loss, batches(x, y, steps), **watch)
