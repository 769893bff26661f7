"""A next-value LSTM forecaster whose window builder appends ``data[i - steps]`` on every pass
of its inner loop instead of ``data[i - steps + j]``: each "window" of 10 steps is the value
from 10 steps ago repeated 10 times. The LSTM trains happily (its loss falls to the error of
a 10-step-ahead guess from one old value), but it never sees the latest observations, so on
a series with a 12-step cycle its next-value forecast is far off.

Reported: "Repeated feature in get_lstm_input() function?" -
https://github.com/jcamiloangarita/stocker/issues/8 ("it is just repeated `j` times of the
same feature. Shouldn't be `features.append(data[i - steps + j, :])` instead?"; the author:
"You are completely right!"). Here the two-cycle synthetic series of ``_ts190`` (periods 12
and 40, noise), standardised on its first 1000 steps, windows of 10 steps labelled with the
next value, a one-layer LSTM (hidden 32) and a linear head, Adam, 400 steps of 64 windows,
judged on the held-out tail.

Fix: the window's j-th step is ``data[i - steps + j]``.

Measured (held-out one-step RMSE, standardised units): 0.94 with the bug, 0.20 fixed;
seeds + 1000: 0.93 vs 0.20.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._ts190 import LENGTH, TRAIN_END, scale, series

TITLE = "Repeated feature in get_lstm_input() function?"
LINK = "https://github.com/jcamiloangarita/stocker/issues/8"
EXPECTED = ("INPUT_FEATURES_DUPLICATED",)
STEPS = 400
WINDOW = 10


def lstm_input(values, start, end, fixed):
    """(N, WINDOW, 1) windows before each row i in [start + WINDOW, end) and y[i] (N, 1)."""
    samples, labels = [], []
    for i in range(start + WINDOW, end):
        features = []
        for j in range(WINDOW):
            if fixed:
                features.append(values[i - WINDOW + j])
            else:
                features.append(values[i - WINDOW])      # BUG: the same (oldest) step each time
        samples.append(features)
        labels.append(values[i])
    return (torch.tensor(np.array(samples))[:, :, None],
            torch.tensor(np.array(labels))[:, None])


class Forecaster(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    values = scale(series(0))[:, 0]
    x, y = lstm_input(values, 0, TRAIN_END, fixed)
    model = Forecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            pick = torch.randint(0, len(x), (64,))
            optimizer.zero_grad()
            loss = nn.functional.l1_loss(model(x[pick]), y[pick])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    xh, yh = lstm_input(values, TRAIN_END, LENGTH, fixed)
    with torch.no_grad():
        mon.held_out_rmse = float(torch.sqrt(((model(xh) - yh) ** 2).mean()))
    return mon
