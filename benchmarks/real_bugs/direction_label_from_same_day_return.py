"""An up/down classifier whose label is the sign of the SAME day's return - the last return in
its own input window - instead of the next day's: the model learns to read the sign of its
last input (training accuracy near 1) and has nothing to do with tomorrow; the observed signal
that does move the next day's price is never needed.

Reported: "your label function is incorrect" -
https://github.com/jiewwantan/XGBoost_stock_prediction/issues/1 ("you should use the Return of
next day, not the Return of current day. `return (df['Returns'].shift(-seq_length) >
0).astype(int)`"; a second user: "yes, you should shift to next day, not current day").
Here 2400 days of returns whose next value follows an observed daily signal (an order-flow
imbalance, correlation 0.6) and has no autocorrelation of its own; the input is the last 10
days of returns and signal, an MLP with BCE, Adam, the last 25% held out. Fix: the label is
the sign of the next day's return.
Held-out next-day direction accuracy: 0.50 against 0.69 with next-day labels; seeds + 1000:
0.51 vs 0.71.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._fin import (TRAIN_FRACTION, direction_accuracy, lagged, mlp,
                                       signal_returns, tensor)

TITLE = "your label function is incorrect"
LINK = "https://github.com/jiewwantan/XGBoost_stock_prediction/issues/1"
EXPECTED = ("TARGETS_IN_INPUTS", "LABELS_MISALIGNED")
STEPS = 300
DAYS, LAGS, SCALE = 2400, 10, 0.01


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    signal, returns = signal_returns(DAYS, beta=0.6, scale=SCALE, rng=rng)
    ends = np.arange(LAGS - 1, DAYS - 1)                # the last day of each input window
    features = np.concatenate([lagged(returns / SCALE, LAGS)[:-1],
                               lagged(signal, LAGS)[:-1]], axis=1)
    # BUG when not fixed: the label is the window's own last day, not the day after it
    labelled = ends + 1 if fixed else ends
    x, y = tensor(features), tensor(returns[labelled, None] > 0)
    cut = int(TRAIN_FRACTION * len(x))
    model = mlp(2 * LAGS)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(int(torch.randint(10 ** 6, ())))
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(0, cut, (64,), generator=g)
            loss = F.binary_cross_entropy_with_logits(model(x[index]), y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        logits = model(x[cut:]).numpy().ravel()
    mon.heldout_accuracy = direction_accuracy(logits, returns[ends[cut:] + 1])
    return mon
