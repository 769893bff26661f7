"""Shared pieces of real-bug batch 190 (time-series forecasting written by hand): a synthetic
series of two seasonal cycles plus noise (an optional exogenous covariate channel that drives
it), a standard scaler fitted on the training span, sliding lag windows, a small MLP one-step
forecaster and a held-out recursive (autoregressive) forecast error. Each case keeps its bug
in its own module."""
import math

import numpy as np
import torch
from torch import nn

LENGTH, TRAIN_END, LAGS, HORIZON = 1400, 1000, 24, 12


def series(seed=0, covariate=False):
    """A (LENGTH, C) float32 array: column 0 the target; with ``covariate`` a second, known
    exogenous column (an AR(1) driver) that the target follows one step later."""
    rng = np.random.default_rng(seed)
    t = np.arange(LENGTH)
    phase = rng.uniform(0, 2 * math.pi, 2)
    y = (np.sin(2 * math.pi * t / 12 + phase[0]) + 0.6 * np.sin(2 * math.pi * t / 40 + phase[1])
         + rng.normal(0, 0.1, LENGTH))
    if not covariate:
        return (3.0 + 2.0 * y)[:, None].astype(np.float32)
    c = np.zeros(LENGTH)
    shocks = rng.normal(0, 1, LENGTH)
    for i in range(1, LENGTH):            # an AR(1) driver the target's own lags cannot foresee
        c[i] = 0.9 * c[i - 1] + 0.45 * shocks[i]
    y = y + 1.5 * np.concatenate([[0.0], c[:-1]])      # the target follows the driver a step late
    return np.stack([3.0 + 2.0 * y, c], axis=1).astype(np.float32)


def scale(data):
    """Standardised with the mean and std of the training span only."""
    mean, std = data[:TRAIN_END].mean(0), data[:TRAIN_END].std(0)
    return (data - mean) / std


def windows(data, start, end):
    """Lag windows (N, LAGS * C) of the rows in [start, end) and the next target (N, 1)."""
    xs, ys = [], []
    for i in range(start + LAGS, end):
        xs.append(data[i - LAGS:i].reshape(-1))
        ys.append(data[i, :1])
    return torch.tensor(np.array(xs)), torch.tensor(np.array(ys))


def forecaster(channels=1):
    return nn.Sequential(nn.Linear(LAGS * channels, 64), nn.ReLU(), nn.Linear(64, 64),
                         nn.ReLU(), nn.Linear(64, 1))


def train(model, x, y, steps, mon, optimizer, batch=64):
    """Adam-style minibatch loop on random windows (torch's global generator)."""
    for _ in range(steps):
        pick = torch.randint(0, len(x), (batch,))
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x[pick]), y[pick])
        loss.backward()
        optimizer.step()
        mon.step(loss)


def recursive_rmse(forecast, data, origins=range(TRAIN_END + LAGS, LENGTH - HORIZON, 7)):
    """Root mean squared error (scaled units) of ``forecast(data, origin)`` -> HORIZON values
    against the true target after each held-out origin."""
    errors = []
    for origin in origins:
        predicted = np.asarray(forecast(data, origin))
        errors.append((predicted - data[origin:origin + HORIZON, 0]) ** 2)
    return float(np.sqrt(np.mean(errors)))
