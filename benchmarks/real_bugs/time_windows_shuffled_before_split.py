"""Sliding windows cut from one time series, shuffled, and only then split into training and
validation: neighbouring windows share all but one of their values, so nearly every
validation window has its neighbours, shifted by one step, in the training set. The
validation loss then measures interpolation between windows the model was trained on, not
forecasting of a stretch of time it has never seen, and it flatters the model.

Reported: "Data leakage train test split" -
https://github.com/Y-debug-sys/Diffusion-TS/issues/67 ("You first create sliding windows and
then you shuffle them. But due to the overlap between the windows you model has information
about all the samples in the test set ... In a Time series setting you would usually split
a specific point in time and use data from before that to train"). Here a noisy seasonal
series, windows of 24 steps, an MLP forecasting the next value, validated every 25 steps
(this small MLP memorises little, so its validation loss is flattered only a little: 0.110
against 0.113 for a split in time; the flaw is that the number no longer measures a
forecast).
Fix: split the series in time first (the last 20% of the windows validate), then shuffle
the training windows only.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches

TITLE = "Data leakage train test split"
LINK = "https://github.com/Y-debug-sys/Diffusion-TS/issues/67"
EXPECTED = ("VALIDATION_WINDOWS_OVERLAP_TRAINING",)
STEPS = 300
WINDOW = 24
VALIDATE_EVERY = 25


def series(length=2400, seed=0):
    """Two seasonal cycles and noise: stationary, so a split in time is a fair test."""
    rng = np.random.default_rng(seed)
    t = np.arange(length)
    values = (np.sin(2 * np.pi * t / 50) + 0.5 * np.sin(2 * np.pi * t / 7)
              + 0.3 * rng.standard_normal(length))
    return torch.tensor(values, dtype=torch.float32)


def windows(values, length):
    """Every window of ``length`` values (stride 1) and the value that follows it."""
    starts = torch.arange(len(values) - length)
    x = torch.stack([values[s:s + length] for s in starts.tolist()])
    return x, values[starts + length]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = windows(series(), WINDOW)
    cut = int(0.8 * len(x))
    if fixed:
        train, held_out = torch.arange(cut), torch.arange(cut, len(x))
    else:
        # BUG: the windows are shuffled before the split, so the validation windows are
        # scattered through the series, between training windows that overlap them
        order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
        train, held_out = order[:cut], order[cut:]
    x_val, y_val = x[held_out], y[held_out]
    model = torch.nn.Sequential(torch.nn.Linear(WINDOW, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (xb, yb) in enumerate(batches(x[train], y[train], steps), start=1):
            optimizer.zero_grad()
            loss = F.mse_loss(model(xb).squeeze(1), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % VALIDATE_EVERY == 0:
                with torch.no_grad():
                    val_loss = F.mse_loss(model(x_val).squeeze(1), y_val)
            mon.step(loss, val_loss=val_loss)
    return mon
