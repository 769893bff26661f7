"""A volatility forecaster meant to predict the next 7 days' realised volatility trained on a
target that is the 30-day TRAILING realised volatility read 7 days ahead: 23 of the target's
30 days are already in the input window, so the loss is dominated by a smoothed copy of the
past and the network learns that average; as a forecast of the coming week's volatility it
lags every regime change.

Reported: "Question for the prediction target" -
https://github.com/chibui191/bitcoin_volatility_forecasting/issues/4 ("Some questions
regarding to the prediction target: vol in 7 days future. Why prediction 30 days history RV in
7 days future? Wouldn't it cause information leaking? Have you tried predicting 7 days RV in 7
days future"). Here 3000 days of returns with stochastic volatility (log volatility AR(1),
0.85 a day, so regimes last days to weeks), the last 30 days' absolute returns in, the log
realised volatility out, an MLP, Adam, the last 25% held out. Fix: the target is the realised
volatility of the 7 days after the window.
Held-out mean squared error of the log volatility of the next 7 days: 0.366 against 0.285;
seeds + 1000: 0.461 vs 0.395.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._fin import TRAIN_FRACTION, lagged, mlp, tensor

TITLE = "Question for the prediction target"
LINK = "https://github.com/chibui191/bitcoin_volatility_forecasting/issues/4"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 300
DAYS, LAGS, AHEAD, TRAILING = 3000, 30, 7, 30


def returns_with_stochastic_volatility(rng):
    log_vol = np.zeros(DAYS)
    shocks = rng.normal(0, 0.35, DAYS)
    for t in range(1, DAYS):
        log_vol[t] = 0.85 * log_vol[t - 1] + shocks[t]
    return 0.01 * np.exp(log_vol) * rng.normal(0, 1, DAYS)


def realised(returns, last, span):
    """log realised volatility of the ``span`` days ending at each index in ``last``."""
    squares = lagged(returns ** 2, span)                  # row i ends on day i + span - 1
    return np.log(np.sqrt(squares[last - span + 1].mean(axis=1)) / 0.01)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    r = returns_with_stochastic_volatility(rng)
    ends = np.arange(TRAILING, DAYS - AHEAD)              # the last day of each input window
    features = lagged(np.abs(r) / 0.01, LAGS)[ends - LAGS + 1]
    future = realised(r, ends + AHEAD, AHEAD)             # what is wanted: the next 7 days
    # BUG when not fixed: the 30-day trailing volatility 7 days ahead (23 days already seen)
    target = future if fixed else realised(r, ends + AHEAD, TRAILING)
    x, y = tensor(features), tensor(target[:, None])
    cut = int(TRAIN_FRACTION * len(x))
    model = mlp(LAGS)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(int(torch.randint(10 ** 6, ())))
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(0, cut - AHEAD, (64,), generator=g)
            loss = F.mse_loss(model(x[index]), y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x[cut:]).numpy().ravel()
    mon.heldout_mse = float(np.mean((predicted - future[cut:]) ** 2))
    return mon
