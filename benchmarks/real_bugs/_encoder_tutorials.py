"""Shared pieces for batch 279 (beginner nn.TransformerEncoder classifiers and regressors
from first tutorials: batch_first, key-padding-mask conventions, positional encodings,
pooling the sequence).

- ``SeqFirstPositions``: the sinusoidal table of the PyTorch language-model tutorial, laid
  out for (sequence, batch, features) inputs (table (max_len, 1, d), ``x + pe[:x.size(0)]``).
- ``BatchFirstPositions``: the same table for (batch, sequence, features) inputs.
- ``oscillator_windows``: a noisy damped oscillation (an AR(2) "price" series), cut into
  look-back windows and the next value, split in time.
"""
import math

import numpy as np
import torch
from torch import nn


def sinusoid_table(max_len, dim):
    position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
    div = torch.exp(torch.arange(0, dim, 2, dtype=torch.float32) * (-math.log(10000.0) / dim))
    table = torch.zeros(max_len, dim)
    table[:, 0::2] = torch.sin(position * div)
    table[:, 1::2] = torch.cos(position * div)
    return table


class SeqFirstPositions(nn.Module):
    """For x of shape (sequence, batch, dim)."""
    def __init__(self, dim, max_len=5000):
        super().__init__()
        self.register_buffer("pe", sinusoid_table(max_len, dim).unsqueeze(1))

    def forward(self, x):
        return x + self.pe[:x.size(0)]


class BatchFirstPositions(nn.Module):
    """For x of shape (batch, sequence, dim)."""
    def __init__(self, dim, max_len=5000):
        super().__init__()
        self.register_buffer("pe", sinusoid_table(max_len, dim).unsqueeze(0))

    def forward(self, x):
        return x + self.pe[:, :x.size(1)]


def oscillator_windows(window=24, length=3000, seed=0):
    """((x, y), (x_held, y_held)): x (N, window, 1) standardised values, y (N,) the value
    after the window; the held-out windows come from the last fifth of the series."""
    rng = np.random.default_rng(seed)
    series = np.zeros(length)
    for t in range(2, length):
        series[t] = 1.6 * series[t - 1] - 0.9 * series[t - 2] + rng.normal()
    split = int(length * 0.8)
    mean, std = series[:split].mean(), series[:split].std()
    series = ((series - mean) / std).astype(np.float32)

    def cut(part):
        xs = np.stack([part[i:i + window] for i in range(len(part) - window)])
        ys = part[window:]
        return torch.from_numpy(xs).unsqueeze(-1), torch.from_numpy(ys.copy())

    return cut(series[:split]), cut(series[split:])

