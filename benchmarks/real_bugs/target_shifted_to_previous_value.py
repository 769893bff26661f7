"""Windows of a series labelled with a target column built by shifting the series
FORWARD (``shift(1)``): the label of the window ending at t is the value at t - 1, which
is inside the window. The model learns to copy one of its inputs (the loss falls to
nearly nothing) and predicts the past, not the future.

Reported: "Target variable is shifted in the wrong direction (example notebook)" -
https://github.com/KIC/pandas-ml-quant/issues/25 ("you shift a target variable forward.
That means you predict previous, not future, values ... Adding windows will just include
your target value in the input features"; the author: "I can not believe that I have made
such a silly mistake ... I will fix it now"). Here a noisy sum of two cycles, windows of
10 values, an MLP. Measured (seed 0, 300 steps): mean training loss of the last 20 steps
0.0011 against 0.137 for the fixed twin. Fix: the target is the series shifted
backward (``shift(-1)``): the value after the window.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = "Target variable is shifted in the wrong direction (example notebook)"
LINK = "https://github.com/KIC/pandas-ml-quant/issues/25"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 300
WINDOW = 10


def series(length=3000, seed=0):
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length, dtype=torch.float32)
    return (torch.sin(2 * torch.pi * t / 24) + 0.5 * torch.sin(2 * torch.pi * t / 60)
            + 0.3 * torch.randn(length, generator=g))


def windows(shift):
    """Windows ending at t and the label column ``series.shift(shift)`` at t."""
    y = series()
    t = torch.arange(WINDOW, len(y) - 1)
    x = torch.stack([y[t - k] for k in range(WINDOW - 1, -1, -1)], dim=1)
    return x, y[t - shift]


def batches(x, y, steps, batch_size=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        rows = torch.randint(0, len(x), (batch_size,), generator=g)
        yield x[rows], y[rows]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    # BUG when not fixed: shift(1) labels the window ending at t with y[t - 1]
    x, y = windows(shift=-1 if fixed else 1)
    model = nn.Sequential(nn.Linear(WINDOW, 64), nn.ReLU(), nn.Linear(64, 1), nn.Flatten(0))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.functional.mse_loss, batches(x, y, steps), **watch)
