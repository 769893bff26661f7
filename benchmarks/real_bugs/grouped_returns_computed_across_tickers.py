"""Daily returns of a stacked multi-ticker table computed with a per-ticker percentage change
that ignored the ticker grouping: in a date-major table (each date's rows for every ticker in
turn) each "return" divides one ticker's price by the previous ROW's - another ticker's - so
the return column holds ratios between different stocks' price levels. The windows and the
next-day targets built from it per ticker are numbers with no relation to any stock's move;
the network fits them and its forecasts say nothing about tomorrow's returns.

Reported: "BUG: groupby.pct_change() does not work properly in Pandas 0.23.0. Grouping is
ignored." - https://github.com/pandas-dev/pandas/issues/21200 ("When there are different
groups in a dataframe, by using `groupby` it is expected that the `pct_change` function be
applied on each group. However, combining `groupby` with `pct_change` does not produce the
correct result": rows of alternating groups got the change from the previous row; fixed in
pandas 0.24, #21235). Here five stocks (price levels 20 to 900) with momentum in their daily
returns (AR(1), 0.4), 1200 dates stacked date-major, the returns column standardised, windows
of 10 returns per ticker, an MLP regressing the next return, Adam, the last 25% of dates held
out. Fix: each return from the same ticker's previous price (a per-ticker shift).
Held-out next-day direction accuracy (against the true returns): 0.54 against 0.63; seeds +
1000: 0.51 vs 0.62.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._fin import (TRAIN_FRACTION, ar_returns, direction_accuracy,
                                       lagged, mlp, tensor)

TITLE = ("BUG: groupby.pct_change() does not work properly in Pandas 0.23.0. "
         "Grouping is ignored.")
LINK = "https://github.com/pandas-dev/pandas/issues/21200"
EXPECTED = ("BATCH_MIXING", "LABELS_MISALIGNED")
STEPS = 300
DATES, LAGS, SCALE = 1200, 10, 0.01
LEVELS = (20.0, 45.0, 110.0, 260.0, 900.0)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    true = np.stack([ar_returns(DATES, 0.4, SCALE, rng) for _ in LEVELS], axis=1)
    prices = np.array(LEVELS) * np.exp(np.cumsum(true, axis=0))      # (dates, tickers)
    column = prices.reshape(-1)                                      # date-major stacked rows
    if fixed:
        change = np.zeros_like(prices)
        change[1:] = prices[1:] / prices[:-1] - 1                    # per ticker
    else:   # BUG: the change from the previous ROW, whichever ticker it belongs to
        flat = np.zeros_like(column)
        flat[1:] = column[1:] / column[:-1] - 1
        change = flat.reshape(prices.shape)
    cut = int(TRAIN_FRACTION * DATES)
    mean, std = change[1:cut].mean(), change[1:cut].std()            # standardised column
    scaled = (change - mean) / std
    xs, ys, days = [], [], []
    for k in range(len(LEVELS)):
        windows = lagged(scaled[1:, k], LAGS + 1)
        xs.append(windows[:, :-1])
        ys.append(windows[:, -1:])
        days.append(np.arange(len(windows)) + LAGS + 1)              # the target's date
    x, y, day = tensor(np.concatenate(xs)), tensor(np.concatenate(ys)), np.concatenate(days)
    ticker = np.repeat(np.arange(len(LEVELS)), len(xs[0]))
    train = np.flatnonzero(day < cut)
    held = np.flatnonzero(day >= cut)
    model = mlp(LAGS)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(int(torch.randint(10 ** 6, ())))
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.as_tensor(train)[torch.randint(0, len(train), (64,), generator=g)]
            loss = F.mse_loss(model(x[index]), y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        forecast = model(x[held]).numpy().ravel() * std + mean
    mon.heldout_accuracy = direction_accuracy(forecast, true[day[held], ticker[held]])
    return mon
