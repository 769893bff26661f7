"""A pairs-trading feature - the spread's deviation from its estimated equilibrium level -
whose equilibrium is fitted ONCE per walk-forward fold on the fold's whole training window and
then applied from the window's start: every training row's deviation is measured from a level
estimated with its own future, and every held-out row from a level that stopped moving when
the training window ended. The equilibrium drifts, so the network learns on a feature that
the held-out days never see in that form, and its reversion forecasts are pulled toward a
stale level.

Reported: "fx_pairs: refit the three stage-04 models on a schedule, not once per fold" -
https://github.com/stefan-jansen/machine-learning-for-trading/pull/763 ("All three models ...
fitted theta once per fold on the fold's whole training window, then ran the model forward
from the start of that same window. Every training row carried parameters estimated from its
own future ... while every validation row carried parameters estimated only from its past. The
model downstream was fitted on one version of the column and scored on another. Nothing
raised"; the fix walks each series once, refitting on everything up to each refit point).
Here a spread whose equilibrium drifts (a random walk, 0.15 a day) around which it
mean-reverts (AR(1), 0.7 a day), 2400 days, today's deviation and change in, the next day's
change out, an MLP, Adam, the last 25% held out. Fix: the equilibrium is refitted every 5
days on the 20 days before, past data only, for training and held-out rows alike.
Held-out next-day direction accuracy: 0.51 against 0.58; seeds + 1000: 0.54 vs 0.58 (+ 2000
and + 3000: 0.53 vs 0.61 both).
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._fin import (TRAIN_FRACTION, direction_accuracy, lagged, mlp,
                                       tensor)

TITLE = "fx_pairs: refit the three stage-04 models on a schedule, not once per fold"
LINK = "https://github.com/stefan-jansen/machine-learning-for-trading/pull/763"
EXPECTED = ("FEATURE_HOLDS_TARGET_VALUES",)
STEPS = 300
DAYS, LAGS, REFIT, LOOKBACK, DRIFT = 2400, 1, 5, 20, 0.15


def spread(rng):
    level = np.cumsum(rng.normal(0, DRIFT, DAYS))         # the drifting equilibrium
    gap = np.zeros(DAYS)
    shocks = rng.normal(0, 1, DAYS)
    for t in range(1, DAYS):
        gap[t] = 0.7 * gap[t - 1] + shocks[t]
    return level + gap


def walked_equilibrium(s):
    """Each day's equilibrium estimate from the past only: refitted every REFIT days on the
    LOOKBACK days before the refit point."""
    estimate = np.full(len(s), s[:LOOKBACK].mean())
    for start in range(LOOKBACK, len(s), REFIT):
        estimate[start:start + REFIT] = s[start - LOOKBACK:start].mean()
    return estimate


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    s = spread(rng)
    change = np.diff(s, prepend=s[0])
    cut_day = int(TRAIN_FRACTION * DAYS)
    if fixed:
        equilibrium = walked_equilibrium(s)
    else:   # BUG: one level for the fold, fitted on its whole training window
        equilibrium = np.full(DAYS, s[:cut_day].mean())
    deviation = s - equilibrium
    ends = np.arange(LOOKBACK, DAYS - 1)                  # the last day of each input window
    x = np.concatenate([lagged(deviation, LAGS)[ends - LAGS + 1],
                        lagged(change, LAGS)[ends - LAGS + 1]], axis=1)
    x, y = tensor(x / 2.0), tensor(change[ends + 1, None] / 2.0)
    train, held = ends + 1 < cut_day, ends >= cut_day
    train = torch.as_tensor(np.flatnonzero(train))
    model = mlp(2 * LAGS)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(int(torch.randint(10 ** 6, ())))
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = train[torch.randint(0, len(train), (64,), generator=g)]
            loss = F.mse_loss(model(x[index]), y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        forecast = model(x[torch.as_tensor(np.flatnonzero(held))]).numpy().ravel()
    mon.heldout_accuracy = direction_accuracy(forecast, change[ends[held] + 1])
    return mon
