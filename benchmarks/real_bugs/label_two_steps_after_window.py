"""A next-day forecaster whose labels are cut one step too far: with a window of days
``data[i:i + WINDOW]`` and ``FORECAST = 1``, the label is taken at ``data[i + WINDOW +
FORECAST]``, the day after tomorrow, because ``i + WINDOW`` is already the first day after
the window. The model trains without complaint on the wrong horizon; as a next-day forecast
it is worse than it could be, since the day after tomorrow is less predictable from today.

Reported: "Error in data-preprocessing in multivariate/multivariate.py" -
https://github.com/Rachnog/Deep-Trading/issues/19 ("Although the FORECAST constant is 1, the
label is actually 2 days after ... Do a little experiment: x = [0, 1, 2, 3]; x[0:3]; x[3]").
Here daily returns with momentum (each day's return carries 0.6 of the day before), a
range and a volume column, windows of 30 days, an MLP. On the last 20% of the series,
MSE of the next-day return forecast (standardised units): 0.79 with the labels two days
out against 0.68 with the right ones.
Fix: the label of the window ``data[i:i + WINDOW]`` is ``data[i + WINDOW + FORECAST - 1]``.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd

TITLE = "Error in data-preprocessing in multivariate/multivariate.py"
LINK = "https://github.com/Rachnog/Deep-Trading/issues/19"
EXPECTED = ("FORECAST_TARGET_SKIPS_A_STEP",)
STEPS = 300
WINDOW = 30
FORECAST = 1


def market(length=3000, seed=0):
    """(length, 3) standardised daily columns: return (with momentum), range, volume."""
    rng = np.random.default_rng(seed)
    shocks = rng.standard_normal(length)
    returns = np.zeros(length)
    for t in range(1, length):
        returns[t] = 0.6 * returns[t - 1] + shocks[t]
    day_range = np.abs(returns) + 0.5 * np.abs(rng.standard_normal(length))
    volume = 0.5 * day_range + rng.standard_normal(length)
    columns = np.stack([returns, day_range, volume], axis=1)
    return torch.tensor((columns - columns.mean(0)) / columns.std(0), dtype=torch.float32)


def examples(data, label_offset):
    """Windows ``data[i:i + WINDOW]`` (flattened) and the return at ``i + label_offset``."""
    starts = torch.arange(len(data) - WINDOW - FORECAST - 1)
    x = data[starts[:, None] + torch.arange(WINDOW)].flatten(1)
    return x, data[starts + label_offset, 0]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = market()
    # BUG (not fixed): i + WINDOW is already the first day after the window
    offset = WINDOW + FORECAST - 1 if fixed else WINDOW + FORECAST
    x, y = examples(data, offset)
    cut = int(0.8 * len(x))
    model = torch.nn.Sequential(torch.nn.Linear(WINDOW * 3, 64), torch.nn.ReLU(),
                                torch.nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(0, cut, (64,), generator=g)
            optimizer.zero_grad()
            loss = F.mse_loss(model(x[index]).squeeze(1), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    _, next_day = examples(data, WINDOW + FORECAST - 1)
    with torch.no_grad():
        mon.held_out_mse = F.mse_loss(model(x[cut:]).squeeze(1), next_day[cut:]).item()
    return mon
