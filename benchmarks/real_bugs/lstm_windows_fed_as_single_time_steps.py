"""An LSTM asked for the average of the last three numbers of a sequence, fed each number as
its own sequence of length one: input reshaped to (samples, 1, 1) "based on similar
questions". Every sample starts from a zero state, so the LSTM never sees the two previous
numbers it is meant to average; the best it can do is a third of the current number plus
the mean, and the error stays where the user saw it ("does not decrease far below 2").

Reported: "Proper shape of LSTM dataset for Keras" -
https://stats.stackexchange.com/questions/507591/proper-shape-of-lstm-dataset-for-keras
(1000 random integers 0-9, the target the average of numbers i-2, i-1 and i; LSTM(4,
input_shape=(1, 1)), input reshaped to (input.shape[0], 1, 1); "the mean square error does
not decrease far below 2 ... It seems like I have mis-shaped my input"). Here the same
task in torch (inputs standardised, targets in raw units), an LSTM(1, 16) with a linear
head, Adam for 300 steps of 32 samples, a held-out stretch of the sequence.
Fix: windows of the last three numbers, (samples, 3, 1), so the recurrence runs over them.
Harm (held-out MSE, raw units): 1.6487 vs 0.0106; seeds + 1000: 1.6910 vs 0.0073.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_lstm_forecast import Forecaster, mse, picks

TITLE = "Proper shape of LSTM dataset for Keras"
LINK = "https://stats.stackexchange.com/questions/507591/proper-shape-of-lstm-dataset-for-keras"
EXPECTED = ("RECURRENT_STATE_NEVER_PASSED",)
STEPS = 300
LENGTH, TRAIN = 1300, 1000


def samples(numbers, fixed):
    """Inputs and the average of numbers i-2..i for i >= 2."""
    scaled = (numbers - 4.5) / 2.9
    target = np.array([numbers[i - 2:i + 1].mean() for i in range(2, len(numbers))])
    if fixed:
        x = np.stack([scaled[i - 2:i + 1] for i in range(2, len(numbers))])[:, :, None]
    else:
        x = scaled[2:].reshape(-1, 1, 1)              # BUG: one number, one time step
    return (torch.tensor(x, dtype=torch.float32),
            torch.tensor(target, dtype=torch.float32)[:, None])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    numbers = rng.integers(0, 10, LENGTH).astype(np.float64)
    x, y = samples(numbers[:TRAIN], fixed)
    x_test, y_test = samples(numbers[TRAIN:], fixed)
    model = Forecaster(hidden=16)
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
