"""An autoregressive forecaster (DeepAR-like LSTM) whose inputs at step t are the known
covariates of step t plus the target column, which the dataset fills with the scaled
target *of step t* and the model is meant to overwrite with the lagged target (step
t - 1) before reading it. The overwrite goes to the column named by a wrong index
(``target_pos``), a covariate column: the target column keeps the value of the very step
the model predicts. Training turns into copying it; a forecast, where the future target
is unknown, has nothing to copy.

Reported: "Is there leakage?" - https://github.com/sktime/pytorch-forecasting/issues/182
(labelled bug; "The scaled target is being fed straight in", and "one possible bug is that
the below block does not over ride the target variable, I think maybe because target_pos
is incorrect", the block being ``x[:, 0, target_pos] = input_target``). Here noisy daily
cycles with random phase and amplitude, 36 steps, covariates sin/cos of the hour.
Fix: overwrite the target column (``target_pos`` = its index).

Measured (200 steps, seed 0; mean of the last 20 training losses: bug 0.007, fixed
0.039; mean squared error of a free-running 12-step forecast on 512 held-out series,
each step's lag being the model's own previous prediction: bug 0.83, fixed 0.018).
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = "Is there leakage?"
LINK = "https://github.com/sktime/pytorch-forecasting/issues/182"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 200
LENGTH = 36
TARGET_COLUMN = 2            # columns: sin(hour), cos(hour), target


def daily_series(count, rng):
    """(inputs (count, LENGTH, 3) as the dataset gives them, targets (count, LENGTH)): the
    target column holds each step's own scaled target, to be replaced by the lag."""
    hours = (np.arange(LENGTH)[None, :] + rng.integers(0, 24, (count, 1))) % 24
    angle = 2 * np.pi * hours / 24
    amplitude = rng.uniform(0.5, 1.5, (count, 1))
    phase = rng.uniform(0, 2 * np.pi, (count, 1))
    target = amplitude * np.sin(angle + phase) + 0.1 * rng.standard_normal((count, LENGTH))
    inputs = np.stack([np.sin(angle), np.cos(angle), target], -1)
    return (torch.tensor(inputs, dtype=torch.float32), torch.tensor(target, dtype=torch.float32))


def with_lagged_target(inputs, targets, target_pos):
    """The model's input: the lagged target written into column ``target_pos``."""
    x = inputs.clone()
    lagged = torch.cat([torch.zeros_like(targets[:, :1]), targets[:, :-1]], 1)
    x[:, :, target_pos] = lagged
    return x


class Forecaster(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.rnn = nn.LSTM(3, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.head(self.rnn(x)[0]).squeeze(-1)


def batches(steps, fixed, batch_size=32, seed=0):
    rng = np.random.default_rng(seed)
    # BUG when not fixed: the lag overwrites column 0 (a covariate); column 2 keeps the target
    target_pos = TARGET_COLUMN if fixed else 0
    for _ in range(steps):
        inputs, targets = daily_series(batch_size, rng)
        yield with_lagged_target(inputs, targets, target_pos), targets


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = Forecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.MSELoss(), batches(steps, fixed), **watch)
