"""A forecaster trained on windows that were min-max scaled as a whole - the look-back part
the model reads and the forecast part it must predict together - and only then split into
input and target. The input's scale then tells where the forecast lies: when the input
stays below 1 the maximum is still to come, and how far below says how high. The model
learns to read that, and it is gone when the model forecasts for real, with a window
scaled by the only values it can know, its look-back.

Reported: "Normalization Enquiry" - https://github.com/philipperemy/n-beats/issues/3 ("In
deducting the min and dividing by the max of the variable x then subsequently splitting x
into x and y where y is the target, there seems to be forward-looking of data of y as the
normalization would have information contained from the target"; the maintainer: "yes
you are correct"). Here a random walk with a daily cycle, look-back 24, forecast 6, an MLP
(training loss 0.05 against the fixed twin's 0.13; forecasting unseen windows scaled by
their look-back, squared error in the series' units 5.6 against the fixed twin's 4.4).
Fix: the minimum and maximum of the look-back only, applied to both parts.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = "Normalization Enquiry"
LINK = "https://github.com/philipperemy/n-beats/issues/3"
EXPECTED = ("SCALED_WITH_TARGET_STATISTICS",)
STEPS = 200
BACKCAST, FORECAST = 24, 6


def random_walk(length=6000, seed=0):
    """A random walk plus a daily cycle: where it goes next is not in its past."""
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length, dtype=torch.float32)
    walk = torch.cumsum(torch.randn(length, generator=g), 0)
    return walk + 2 * torch.sin(2 * torch.pi * t / 24)


def min_max(window, reference):
    low = reference.min(dim=1, keepdim=True).values
    high = reference.max(dim=1, keepdim=True).values
    return (window - low) / (high - low)


def windows(steps, look_back_only, batch_size=32, seed=0):
    """(look-back (B, BACKCAST), forecast (B, FORECAST)), each window min-max scaled."""
    values = random_walk()
    g = torch.Generator().manual_seed(seed + 1)
    for _ in range(steps):
        starts = torch.randint(0, len(values) - BACKCAST - FORECAST, (batch_size,), generator=g)
        window = values[starts[:, None] + torch.arange(BACKCAST + FORECAST)]
        # BUG when not look_back_only: the scale is taken over the forecast as well
        reference = window[:, :BACKCAST] if look_back_only else window
        scaled = min_max(window, reference)
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
