"""Shared pieces of real-bug batch 238 (beginner LSTM time-series forecasting from first
tutorials): a noisy two-cycle series standardised with its training span's statistics,
sliding windows over it, a small batch-first LSTM forecaster, minibatches drawn from
torch's global generator and a held-out mean squared error. Each case keeps its bug in its
own module."""
import math

import numpy as np
import torch
from torch import nn

LENGTH, TRAIN_END = 1200, 900


def series(seed=0, length=LENGTH, noise=0.15):
    """A (length,) float32 array: two seasonal cycles plus noise, standardised with the mean
    and standard deviation of the first TRAIN_END values only."""
    rng = np.random.default_rng(seed)
    t = np.arange(length)
    phase = rng.uniform(0, 2 * math.pi, 2)
    y = (np.sin(2 * math.pi * t / 16 + phase[0]) + 0.5 * np.sin(2 * math.pi * t / 37 + phase[1])
         + rng.normal(0, noise, length))
    y = 50.0 + 10.0 * y
    return ((y - y[:TRAIN_END].mean()) / y[:TRAIN_END].std()).astype(np.float32)


def windows(values, start, end, lags, ahead=1):
    """Windows (N, lags, 1) of the values before each row i in [start + lags, end - ahead + 1)
    and the value ``ahead`` steps after the window's last one (N, 1)."""
    xs, ys = [], []
    for i in range(start + lags, end - ahead + 1):
        xs.append(values[i - lags:i])
        ys.append(values[i + ahead - 1:i + ahead])
    return torch.tensor(np.array(xs))[:, :, None], torch.tensor(np.array(ys))


class Forecaster(nn.Module):
    """LSTM over the window, a linear head on the last step's output."""

    def __init__(self, inputs=1, hidden=32, outputs=1):
        super().__init__()
        self.lstm = nn.LSTM(inputs, hidden, batch_first=True)
        self.head = nn.Linear(hidden, outputs)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


def picks(n, batch=32):
    """A random minibatch of row indices (torch's global generator)."""
    return torch.randint(0, n, (batch,))


def mse(prediction, target):
    return round(float(((prediction.reshape(-1) - target.reshape(-1)) ** 2).mean()), 4)
