"""A next-value LSTM forecaster trained on a standardised series (mean 0, standard
deviation 1, half its values negative) whose output layer ends in a sigmoid: every forecast
lies in (0, 1), so the lower half of the series can never be forecast - the troughs are
clipped at zero and the peaks above one are cut too.

Reported: "Keras LSTM input and output variable ranges" -
https://stackoverflow.com/questions/60306255/keras-lstm-input-and-output-variable-ranges
("I normalized my input and training data so all variables are centered at 0 with a standard
deviation of 1. When I test the network, all of my predictions are positive between 0 and 1,
there are never any negative values even though the training data contained negative
values"; the user worked around it by splitting the target into a positive and a negative
column). The question does not show the output layer; predictions confined to (0, 1) are
the mark of a sigmoid one, which is what this reproduction uses. Here a noisy two-cycle
series, windows of 12 steps, an LSTM(1, 32) with Linear(32, 1) + Sigmoid, Adam for 300 steps
of 32 windows.
Fix: a linear output layer for a standardised regression target.
Harm (held-out next-value MSE, standardised units): 0.5548 vs 0.0747; seeds + 1000:
0.5414 vs 0.0660.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_lstm_forecast import (TRAIN_END, mse, picks, series,
                                                          windows)

TITLE = "Keras LSTM input and output variable ranges"
LINK = "https://stackoverflow.com/questions/60306255/keras-lstm-input-and-output-variable-ranges"
EXPECTED = ("TARGETS_OUTSIDE_OUTPUT_RANGE",)
STEPS = 300
LAGS = 12


class Forecaster(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.lstm = nn.LSTM(1, 32, batch_first=True)
        self.dense = nn.Linear(32, 1)
        self.out = nn.Identity() if fixed else nn.Sigmoid()   # BUG when not fixed

    def forward(self, x):
        h, _ = self.lstm(x)
        return self.out(self.dense(h[:, -1]))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    values = series(seed=0)
    x, y = windows(values, 0, TRAIN_END, LAGS)
    x_test, y_test = windows(values, TRAIN_END, len(values), LAGS)
    model = Forecaster(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            pick = picks(len(x))
            optimizer.zero_grad()
            loss = loss_fn(model(x[pick]), y[pick])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_mse = mse(model(x_test), y_test)
    return mon
