"""Shared pieces of real-bug batch 286 (beginner autoregressive forecasting with teacher
forcing and multi-step decoding): a seasonal series driven by a known exogenous covariate,
standardised on its training span, encoder/decoder windows cut from it, a small GRU
encoder-decoder whose decoder loops over the horizon, and a free-running held-out forecast
error. Each case keeps its bug in its own module; the draws go through
``np.random.default_rng`` and torch's global generator, so ``--shift-seeds`` moves them."""
import math

import numpy as np
import torch
from torch import nn

LENGTH, TRAIN_END, PAST, HORIZON = 1400, 1000, 24, 12


def driven_series(seed=0):
    """(LENGTH, 2) float32, standardised with the first TRAIN_END rows' statistics: column 0
    the target (a 12-step cycle, a slow 40-step one, noise, plus 1.5 x the covariate of the
    SAME step), column 1 the covariate (an AR(1) driver, known ahead, e.g. a planned load)."""
    rng = np.random.default_rng(seed)
    t = np.arange(LENGTH)
    phase = rng.uniform(0, 2 * math.pi, 2)
    c = np.zeros(LENGTH)
    shocks = rng.normal(0, 1, LENGTH)
    for i in range(1, LENGTH):
        c[i] = 0.8 * c[i - 1] + 0.6 * shocks[i]
    y = (np.sin(2 * math.pi * t / 12 + phase[0]) + 0.6 * np.sin(2 * math.pi * t / 40 + phase[1])
         + 1.5 * c + rng.normal(0, 0.1, LENGTH))
    data = np.stack([20.0 + 4.0 * y, c], axis=1)
    mean, std = data[:TRAIN_END].mean(0), data[:TRAIN_END].std(0)
    return ((data - mean) / std).astype(np.float32)


def encoder_decoder_windows(data, start, end):
    """For each origin T in [start + PAST, end - HORIZON]: the past rows (PAST, 2) before T,
    the decoder's rows (HORIZON, 2) - row t holds the target of step T + t - 1 (the value
    before the one step t predicts) and the covariate of step T + t - and the targets
    (HORIZON,) y[T:T + HORIZON]."""
    past, rows, future = [], [], []
    for origin in range(start + PAST, end - HORIZON + 1):
        past.append(data[origin - PAST:origin])
        rows.append(np.stack([data[origin - 1:origin + HORIZON - 1, 0],
                              data[origin:origin + HORIZON, 1]], axis=1))
        future.append(data[origin:origin + HORIZON, 0])
    return (torch.tensor(np.array(past)), torch.tensor(np.array(rows)),
            torch.tensor(np.array(future)))


class Encoder(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.gru = nn.GRU(2, hidden, batch_first=True)

    def forward(self, past):
        _, h = self.gru(past)
        return h


class Decoder(nn.Module):
    """One step: a GRU cell over (previous target, this step's covariate), a linear head."""

    def __init__(self, hidden=32):
        super().__init__()
        self.cell = nn.GRUCell(2, hidden)
        self.head = nn.Linear(hidden, 1)

    def forward(self, row, h):
        h = self.cell(row, h)
        return self.head(h)[:, 0], h


class Seq2Seq(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.encoder, self.decoder = Encoder(hidden), Decoder(hidden)


def held_out_rmse(forecast, data):
    """RMSE (standardised units) of ``forecast(past, rows) -> (N, HORIZON)`` run free (no
    targets given) from every held-out origin, against the true targets."""
    past, rows, future = encoder_decoder_windows(data, TRAIN_END, LENGTH)
    with torch.no_grad():
        predicted = forecast(past, rows)
    return float(torch.sqrt(((predicted - future) ** 2).mean()))
