"""A forecaster whose past window is normalised per window (its own mean and standard
deviation, an "encoder normaliser") while the value to forecast is left in raw units: the
network reads a shape with the level and scale taken out, and is asked for a number in
the hundreds whose level it cannot see. It can only learn the average level of the
training data, and the forecast error stays as large as the series' spread of levels.

Reported: "[BUG] `y` not being normalized when using `EncoderNormalizer` in
`EncoderDecoderDataModule`" - https://github.com/sktime/pytorch-forecasting/issues/2360
("we only normalize `target_past` and forgot to normalize the decoder indices of the
target ... `y` remains raw"; a fix's reproduction: "target_past (normalized) -> min -1.525
max 1.525, y -> min 220.000 max 270.000"). Here several seasonal series around levels of
100 to 300, windows of 24 steps, an MLP forecasting the next value with MSE (after 300
steps its outputs reach about 50 against targets of 90 to 330; the fixed twin's loss falls
from 0.9 to 0.08 in the window's units).
Fix: scale the target with the statistics of its own input window (and undo that scaling
on the forecast).
"""
import numpy as np
import torch
import torch.nn.functional as F

from benchmarks.real_bugs._common import batches, train_watched

TITLE = ("[BUG] `y` not being normalized when using `EncoderNormalizer` in "
         "`EncoderDecoderDataModule`")
LINK = "https://github.com/sktime/pytorch-forecasting/issues/2360"
EXPECTED = ("TARGETS_UNSCALED",)
STEPS = 300
WINDOW = 24


def shop_series(shops=8, length=400, seed=0):
    """One seasonal series per shop, each around its own level (100-300) and amplitude."""
    rng = np.random.default_rng(seed)
    t = np.arange(length)
    rows = []
    for _ in range(shops):
        level, amplitude = rng.uniform(100, 300), rng.uniform(5, 30)
        trend = rng.uniform(-0.05, 0.05) * t
        rows.append(level + trend + amplitude * np.sin(2 * np.pi * t / 7 + rng.uniform(0, 6))
                    + 0.2 * amplitude * rng.standard_normal(length))
    return torch.tensor(np.stack(rows), dtype=torch.float32)


def windows(series, length):
    """Every window of ``length`` steps of every series, and the value after it."""
    x, y = [], []
    for row in series:
        for s in range(len(row) - length):
            x.append(row[s:s + length])
            y.append(row[s + length])
    return torch.stack(x), torch.stack(y)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    past, future = windows(shop_series(), WINDOW)
    mean = past.mean(1, keepdim=True)
    std = past.std(1, keepdim=True)
    x = (past - mean) / std                     # the encoder window, normalised per window
    if fixed:
        y = (future - mean[:, 0]) / std[:, 0]   # the target in the window's own units
    else:
        y = future                              # BUG: the target stays in raw units
    model = torch.nn.Sequential(torch.nn.Linear(WINDOW, 64), torch.nn.ReLU(),
                                torch.nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def loss_fn(output, target):
        return F.mse_loss(output.squeeze(1), target)
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
