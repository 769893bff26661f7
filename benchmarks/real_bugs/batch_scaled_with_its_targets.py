"""A forecaster whose batches are standardised with the batch's own mean and standard
deviation, taken over the look-back values AND the values to forecast, instead of over
values known when forecasting. Each batch is a stretch of one series (windows that
start within two days of each other), so the batch's statistics say where the series
goes next: the scaled look-back sits low when the forecast rises. The model learns to read
that offset, which is not there when it forecasts for real, where only the look-back is
known.

Reported: "Issues with normalization and prediction" -
https://github.com/arrigonialberto86/deepar/issues/8 ("Normalization is not done properly.
The current implementation applies normalization to the batch, not to the dataset ...
Causes data leakage, information about future values are leaked through the
normalization"). Here a random walk with a daily cycle, look-back 24, forecast 6, an MLP
(forecasting unseen stretches scaled by their look-back, squared error in the series'
units 5.0 against the fixed twin's 4.8).
Fix: the batch's mean and standard deviation over the look-back values only (what a
forecast can know), applied to both parts. (Statistics of the whole training series, the
report's suggestion, leak nothing either, but a random walk leaves their range.)
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = "Issues with normalization and prediction"
LINK = "https://github.com/arrigonialberto86/deepar/issues/8"
EXPECTED = ("SCALED_WITH_TARGET_STATISTICS",)
STEPS = 200
BACKCAST, FORECAST = 24, 6
SPREAD = 48                # the windows of one batch start within this many steps (two days)


def random_walk(length=6000, seed=0):
    """A random walk plus a daily cycle: where it goes next is not in its past."""
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length, dtype=torch.float32)
    walk = torch.cumsum(torch.randn(length, generator=g), 0)
    return walk + 2 * torch.sin(2 * torch.pi * t / 24)


def windows(steps, look_back_only, batch_size=32, seed=0):
    """(look-back (B, BACKCAST), forecast (B, FORECAST)) from one stretch of the series."""
    values = random_walk()
    g = torch.Generator().manual_seed(seed + 1)
    for _ in range(steps):
        first = torch.randint(0, len(values) - BACKCAST - FORECAST - SPREAD, (1,), generator=g)
        starts = first + torch.randint(0, SPREAD, (batch_size,), generator=g)
        window = values[starts[:, None] + torch.arange(BACKCAST + FORECAST)]
        # BUG when not look_back_only: the statistics include the values to forecast
        known = window[:, :BACKCAST] if look_back_only else window
        mean, std = known.mean(), known.std()
        scaled = (window - mean) / std
        yield scaled[:, :BACKCAST], scaled[:, BACKCAST:]


def forecaster():
    return nn.Sequential(nn.Linear(BACKCAST, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                         nn.Linear(64, FORECAST))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = forecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.functional.mse_loss,
                         windows(steps, look_back_only=fixed), **watch)
