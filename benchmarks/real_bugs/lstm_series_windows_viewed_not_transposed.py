"""Windows of a time series, ``X_train`` of shape ``(samples, steps)``, are turned into the
``(steps, samples, 1)`` layout an LSTM without ``batch_first`` reads with
``X_train.view([steps, -1, 1])``. A view keeps the memory order, so "sequence" k of the
result is not window k read in time order: time step t of it holds element
``t * samples + k`` of the flattened windows, values of other windows at other lags. Every
input the LSTM sees is a scramble of several windows, while its target is still window k's
next value: the model cannot learn the series' dynamics and fits little more than the mean.
No error, no warning: the shapes are right.

Reported: "X_train and X_test incorrectly reshaped in lstm-baseline.py" -
https://github.com/jessicayung/blog-code-snippets/issues/6 (the code of a widely read blog
post on LSTMs for time series in PyTorch; "You should first transpose both matrices. The
best way to track the problem is using a time series with the values 1, 2, 3, etc. and you
will find the error ... X_train = X_train.t().view(input_size, -1, 1) instead of
X_train = X_train.view([input_size, -1, 1])"). Here the blog's setup: windows of 20 values
of an autoregressive series, the whole training set as one batch, an LSTM(1, 32) and a
linear read-out of its last step, Adam at 1e-2 (200 windows here, not the blog's 80).

Measured (100 full-batch steps on 200 windows, MSE on the training windows, the series'
variance 1.0): bug 0.85 (little better than predicting the mean), fixed 0.12.

Fix: transpose, then add the feature axis: ``X_train.t().unsqueeze(-1)`` (or build the
LSTM with ``batch_first=True`` and ``X_train.unsqueeze(-1)``).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd

TITLE = "X_train and X_test incorrectly reshaped in lstm-baseline.py"
LINK = "https://github.com/jessicayung/blog-code-snippets/issues/6"
EXPECTED = ("INPUT_LAYOUT_SCRAMBLED",)
STEPS = 100
INPUT_SIZE = 20
WINDOWS = 200


def ar_windows(count, steps, seed=0):
    """(count, steps) windows of a stable, oscillating AR(3) series and the value after each, scaled to
    unit variance."""
    rng = np.random.default_rng(seed)
    series = np.zeros(count + steps + 200)
    for t in range(3, len(series)):
        series[t] = (1.5 * series[t - 1] - 0.8 * series[t - 2] + 0.1 * series[t - 3]
                     + 0.3 * rng.standard_normal())
    series = series[200:]
    series = (series - series.mean()) / series.std()
    x = np.stack([series[i:i + steps] for i in range(count)])
    y = series[steps:steps + count]
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.float32)


class RNN(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden)             # (steps, batch, features)
        self.linear = nn.Linear(hidden, 1)

    def forward(self, series):
        out, _ = self.lstm(series)
        return self.linear(out[-1]).view(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    X_train, y_train = ar_windows(WINDOWS, INPUT_SIZE)
    if fixed:
        X_train = X_train.t().unsqueeze(-1)        # the fix: (steps, samples, 1), in order
    else:
        X_train = X_train.view([INPUT_SIZE, -1, 1])   # BUG: a view, not a transpose
    model = RNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = loss_fn(model(X_train), y_train)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
