"""A next-step forecaster whose label column is built with ``shift(1)`` where the next value
needs ``shift(-1)``: each window of the last 24 values (ending at row i) is labelled with the
value at i - 1, which is already the window's second-to-last input. The network only has to
copy one of its inputs, so the training loss drops to almost nothing - it looks like a great
fit - while as a forecast of the next value it is two steps late on a 12-step cycle.

Reported: "Target variable is shifted in the wrong direction (example notebook)" -
https://github.com/KIC/pandas-ml-quant/issues/25 ("you shift a target variable forward. That
means you predict previous, not future, values"; the author: "I can not believe that I have
made such a silly mistake"). Here the two-cycle synthetic series of ``_ts190`` (periods 12
and 40, noise), standardised on its first 1000 steps, windows of 24 values, an MLP trained
with Adam on minibatches of 64 for 600 steps, judged on the held-out tail against the value
that really comes next.

Fix: label each window with the value after it, ``shift(-1)`` (row i + 1).

Measured (held-out one-step RMSE against the next value, standardised units): 0.89 with the
bug, 0.14 fixed; seeds + 1000: 0.87 vs 0.14.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._ts190 import LAGS, LENGTH, TRAIN_END, forecaster, scale, series

TITLE = "Target variable is shifted in the wrong direction (example notebook)"
LINK = "https://github.com/KIC/pandas-ml-quant/issues/25"
EXPECTED = ("TARGETS_IN_INPUTS", "LABELS_MISALIGNED")
STEPS = 600


def frame(values, start, end, shift):
    """Windows of LAGS values ending at row i (inclusive), for i in [start + LAGS - 1,
    end - 1), and the label column ``values.shift(shift)`` at row i."""
    xs, ys = [], []
    for i in range(start + LAGS - 1, end - 1):
        xs.append(values[i - LAGS + 1:i + 1])
        ys.append(values[i - shift:i - shift + 1])
    return torch.tensor(np.array(xs)), torch.tensor(np.array(ys))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    values = scale(series(0))[:, 0]
    shift = -1 if fixed else 1                  # BUG: shift(1) labels row i with row i - 1
    x, y = frame(values, 0, TRAIN_END, shift)
    model = forecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            pick = torch.randint(0, len(x), (64,))
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x[pick]), y[pick])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    xh, next_value = frame(values, TRAIN_END, LENGTH, -1)   # judged on the real next value
    with torch.no_grad():
        mon.held_out_rmse = float(torch.sqrt(((model(xh) - next_value) ** 2).mean()))
    return mon
