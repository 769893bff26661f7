"""A next-day forecaster trained on windows of price LEVELS (min-max scaled) to predict the
next price, instead of on returns: tomorrow's price is today's price plus a change a hundred
times smaller, so the regression is almost all "repeat the last price" and the model fits that
part; the change it has to forecast is lost under the level's error, and the direction it
implies (predicted price minus today's) is noise.

Reported: "Use return in finance modeling, not price!" -
https://github.com/BenjiKCF/Neural-Net-with-Financial-Time-Series-Data/issues/8 ("I think your
model is not better than just use last day price to predict. Use return in finance modeling,
not price!"; the reporter: "when your predict absolute price, last price is a safe place to
bet ... hiding your bad prediction of increment"; the author agreed). Here 2400 days of an
asset whose daily returns have momentum (AR(1), coefficient 0.4, 1% a day), windows of 20
days, an MLP, Adam, the last 25% held out. Fix: returns in, the next return out (scaled to
unit size); the direction is the sign of the forecast.
Held-out next-day direction accuracy: 0.47 against 0.60 on returns; seeds + 1000: 0.38 vs
0.64 (the AR(1) ceiling is ~0.63).
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._fin import (TRAIN_FRACTION, ar_returns, direction_accuracy,
                                       lagged, mlp, tensor)

TITLE = "Use return in finance modeling, not price!"
LINK = "https://github.com/BenjiKCF/Neural-Net-with-Financial-Time-Series-Data/issues/8"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 300
DAYS, LAGS, SCALE = 2400, 20, 0.01


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    returns = ar_returns(DAYS, phi=0.4, scale=SCALE, rng=rng)
    prices = 100 * np.exp(np.cumsum(returns))
    windows = lagged(np.arange(DAYS), LAGS + 1)[1:]        # day indices, the last is the target
    cut = int(TRAIN_FRACTION * len(windows))
    if fixed:
        series = returns / SCALE
    else:   # BUG: price levels in and out, min-max scaled on the training days
        low, high = prices[:windows[cut, 0]].min(), prices[:windows[cut, 0]].max()
        series = (prices - low) / (high - low)
    x, y = tensor(series[windows[:, :-1]]), tensor(series[windows[:, -1:]])
    model = mlp(LAGS)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(int(torch.randint(10 ** 6, ())))
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(0, cut, (64,), generator=g)
            loss = F.mse_loss(model(x[index]), y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x[cut:]).numpy().ravel()
    move = predicted if fixed else predicted - series[windows[cut:, -2]]
    mon.heldout_accuracy = direction_accuracy(move, returns[windows[cut:, -1]])
    return mon
