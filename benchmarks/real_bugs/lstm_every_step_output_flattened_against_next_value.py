"""A next-value LSTM forecaster whose head runs on every time step and whose outputs are
flattened into one row (batch, window * 2) before the loss: MSELoss broadcasts the single
next value against every entry of that row, so every step - the first ones included, which
have seen almost nothing of the window - is trained to output the value that follows the
whole window, and the "forecast" read off the row is the average of those guesses.

Reported: "In a number sequence 1,2,3,4 estimate the next number using LSTM" -
https://discuss.pytorch.org/t/in-a-number-sequence-1-2-3-4-estimate-the-next-number-using-lstm/202270
(LSTM -> Linear(20, 2) -> Flatten(start_dim=1, end_dim=2); "UserWarning: Using a target size
(torch.Size([1])) that is different to the input size (torch.Size([1, 20])) ... broadcasting";
the model returns 20 numbers where the user "wanted ... one single y value"). Here a noisy
two-cycle series, windows of 12 steps, an LSTM(1, 32) with a Linear(32, 2) head on every step,
Adam for 300 steps of 32 windows; the bug run's forecast is the mean of its 24 outputs.
Fix: the head reads the last step only and returns one value per window (batch, 1).
Harm (held-out next-value MSE, standardised units): 0.2047 vs 0.0747; seeds + 1000:
0.2095 vs 0.0660.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_lstm_forecast import (TRAIN_END, mse, picks, series,
                                                          windows)

TITLE = "In a number sequence 1,2,3,4 estimate the next number using LSTM"
LINK = ("https://discuss.pytorch.org/t/"
        "in-a-number-sequence-1-2-3-4-estimate-the-next-number-using-lstm/202270")
EXPECTED = ("LOSS_SHAPE_MISMATCH",)
STEPS = 300
LAGS = 12


class EveryStep(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.lstm = nn.LSTM(1, 32, batch_first=True)
        self.fc = nn.Linear(32, 1 if fixed else 2)
        self.flatten = nn.Flatten(start_dim=1, end_dim=2)

    def forward(self, x):
        out, _ = self.lstm(x)
        if self.fixed:
            return self.fc(out[:, -1])               # (batch, 1)
        return self.flatten(self.fc(out))            # BUG: (batch, LAGS * 2)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    values = series(seed=0)
    x, y = windows(values, 0, TRAIN_END, LAGS)
    x_test, y_test = windows(values, TRAIN_END, len(values), LAGS)
    model = EveryStep(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            pick = picks(len(x))
            optimizer.zero_grad()
            loss = loss_fn(model(x[pick]), y[pick])    # (32, 24) against (32, 1) when buggy
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_mse = mse(model(x_test).mean(1), y_test)
    return mon
