"""A per-step forecaster (a GRU reading, at each future step, that step's known covariates
and predicting the series' value there) whose covariate table still holds the target
column: at step t the decoder input includes the very value it is asked to predict.
Training error collapses to nearly zero; a real forecast, where that value is unknown,
is far worse.

Reported: "Is there leakage?" - https://github.com/sktime/pytorch-forecasting/issues/182
(labelled a bug: "The scaled target is being fed straight in"; the decoder's inputs held
the target that the model was predicting, because the block meant to overwrite it with
the last known value did not). Here a noisy sum of sines forecast 24 steps at a time from
3 covariates (two calendar-like phases and the target column). Fix: the target column at
step t holds the value of step t - 1 (the last known one), as autoregressive decoders do.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = "Is there leakage?"
LINK = "https://github.com/sktime/pytorch-forecasting/issues/182"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 120
HORIZON = 24


def series(length=4000, seed=0):
    """A noisy sum of two sines and its two phases (covariates known in advance)."""
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length, dtype=torch.float32)
    daily, weekly = torch.sin(2 * math.pi * t / 24), torch.sin(2 * math.pi * t / 168)
    value = daily + 0.5 * weekly + 0.3 * torch.randn(length, generator=g)
    return daily, weekly, value


def windows(steps, lagged, batch_size=32, seed=0):
    """(covariates (B, HORIZON, 3), targets (B, HORIZON)) from random places in the series."""
    daily, weekly, value = series()
    g = torch.Generator().manual_seed(seed + 1)
    for _ in range(steps):
        starts = torch.randint(1, len(value) - HORIZON, (batch_size,), generator=g)
        index = starts[:, None] + torch.arange(HORIZON)
        # BUG when not lagged: the target column at step t is the value at t itself
        known = value[index - 1] if lagged else value[index]
        covariates = torch.stack([daily[index], weekly[index], known], dim=-1)
        yield covariates, value[index]


class StepForecaster(nn.Module):
    def __init__(self, features=3, dim=32):
        super().__init__()
        self.gru = nn.GRU(features, dim, batch_first=True)
        self.head = nn.Linear(dim, 1)

    def forward(self, covariates):
        hidden, _ = self.gru(covariates)
        return self.head(hidden).squeeze(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = StepForecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.functional.mse_loss,
                         windows(steps, lagged=fixed), **watch)
