"""A load forecaster given calendar encodings of the day it forecasts (sine and cosine of
the hour, of the day of the week and of the month), where the day and month lines were
copied from the hour line and still read the hour: four of the six seasonal inputs are
copies of the first two, so the model never learns the weekly or yearly pattern and must
guess whether tomorrow is a working day.

Reported: "Wrong time stamp in preprocessing?" -
https://github.com/natashaklingenbrunn/Transformer-Time-Series-Forecasting/issues/2 ("Stumbled
upon these identical lines in your preprocessing ... I assume they should have .day and
.month instead of .hour?"; the author: "Absolutely, you caught a bug I oversaw"). Here an
hourly load with a daily profile, weekends at 60% and a yearly swing, forecast a day (24
values) ahead from the last 48 hours and the six encodings of the first forecast hour, by
an MLP. Measured on the last 20% of the series (never trained on), MSE of the day-ahead
forecast: 0.083 with the copied encodings against 0.044 with the right ones.
Fix: compute the day and month encodings from the timestamp's day of the week and month.
"""
import math

import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd

TITLE = "Wrong time stamp in preprocessing?"
LINK = "https://github.com/natashaklingenbrunn/Transformer-Time-Series-Forecasting/issues/2"
EXPECTED = ("INPUT_FEATURES_DUPLICATED",)
STEPS = 300
HISTORY = 48
HORIZON = 24


def calendar(length):
    """Hour of day, day of week and month (0-based) of each hour from a Monday 1 January."""
    hours = np.arange(length)
    return hours % 24, (hours // 24) % 7, ((hours // 24) % 365) * 12 // 365


def load_series(length=2 * 365 * 24, seed=0):
    """Hourly load: a two-peak daily profile, 60% of it on weekends, a yearly swing, noise."""
    rng = np.random.default_rng(seed)
    hour, weekday, _ = calendar(length)
    t = np.arange(length)
    daily = 1.0 + 0.6 * np.sin(2 * np.pi * (hour - 7) / 24) + 0.3 * np.sin(4 * np.pi * hour / 24)
    working = np.where(weekday >= 5, 0.6, 1.0)
    yearly = 0.4 * np.cos(2 * np.pi * t / (365 * 24))
    values = daily * working + yearly + 0.08 * rng.standard_normal(length)
    return torch.tensor((values - values.mean()) / values.std(), dtype=torch.float32)


def encodings(length, copied):
    """Six seasonal inputs per hour: sin/cos of hour, of day of week, of month."""
    hour, weekday, month = calendar(length)
    parts = ((hour, 24), (weekday, 7), (month, 12))
    if copied:
        # BUG: the day and month lines were copied from the hour line and still read it
        parts = ((hour, 24), (hour, 24), (hour, 24))
    columns = []
    for value, period in parts:
        columns += [np.sin(2 * np.pi * value / period), np.cos(2 * np.pi * value / period)]
    return torch.tensor(np.stack(columns, axis=1), dtype=torch.float32)


def examples(copied):
    """(inputs (N, HISTORY + 6), targets (N, HORIZON)): the last 48 hours and the encodings
    of the first forecast hour, and the next 24 hours."""
    values = load_series()
    seasonal = encodings(len(values), copied)
    starts = torch.arange(HISTORY, len(values) - HORIZON, 6)
    past = values[starts[:, None] + torch.arange(-HISTORY, 0)]
    future = values[starts[:, None] + torch.arange(HORIZON)]
    return torch.cat([past, seasonal[starts]], dim=1), future


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = examples(copied=not fixed)
    cut = int(0.8 * len(x))
    model = torch.nn.Sequential(torch.nn.Linear(HISTORY + 6, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, HORIZON))
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    g = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(0, cut, (64,), generator=g)
            optimizer.zero_grad()
            loss = F.mse_loss(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_mse = F.mse_loss(model(x[cut:]), y[cut:]).item()
    return mon
