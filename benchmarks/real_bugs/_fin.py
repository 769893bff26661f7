"""Shared pieces of real-bug batch 219 (financial and econometric time series): synthetic daily
markets whose next-day return is partly predictable (from its own last returns or from an
observed signal), sliding windows, a small MLP and the held-out metrics the cases report
(direction accuracy, mean squared error). Each case keeps its bug in its own module."""
import numpy as np
import torch
from torch import nn

TRAIN_FRACTION = 0.75


def ar_returns(length, phi=0.4, scale=0.01, rng=None):
    """Daily returns of an AR(1) with coefficient ``phi`` (momentum): the next return's sign
    follows the last one's ~63% of the time at phi 0.4; standard deviation ``scale``."""
    r = np.zeros(length)
    shocks = rng.normal(0, scale * np.sqrt(1 - phi ** 2), length)
    for t in range(1, length):
        r[t] = phi * r[t - 1] + shocks[t]
    return r


def signal_returns(length, beta=0.6, scale=0.01, rng=None):
    """An observed daily signal ``x`` (e.g. order-flow imbalance, standard normal) and returns
    whose NEXT value follows it: r[t + 1] = scale * (beta * x[t] + noise); r has no
    autocorrelation of its own."""
    x = rng.normal(0, 1, length)
    noise = rng.normal(0, np.sqrt(1 - beta ** 2), length)
    r = np.zeros(length)
    r[1:] = scale * (beta * x[:-1] + noise[1:])
    return x, r


def lagged(values, lags):
    """(N - lags + 1, lags): every window of ``lags`` consecutive values, oldest first."""
    values = np.asarray(values)
    index = np.arange(len(values) - lags + 1)[:, None] + np.arange(lags)
    return values[index]


def mlp(inputs, outputs=1, hidden=64):
    return nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                         nn.ReLU(), nn.Linear(hidden, outputs))


def tensor(a):
    return torch.as_tensor(np.asarray(a), dtype=torch.float32)


def direction_accuracy(predicted, actual):
    """Share of days whose predicted sign matches the realised return's sign."""
    predicted, actual = np.asarray(predicted).ravel(), np.asarray(actual).ravel()
    return float(np.mean(np.sign(predicted) == np.sign(actual)))
