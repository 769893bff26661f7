"""A forecaster reads the last values of a series and a rolling mean of the target as a
feature, but the rolling mean is computed over a window that ENDS AT the value to be
predicted: with the lagged values beside it, that value is the window's sum minus the
others, an exact linear function of the inputs. Training error drops to nothing; at
forecast time the mean of a window that holds tomorrow's value cannot be computed.

Reported: "[BUG] Target leakage in `MeanSegmentEncoderTransform`" -
https://github.com/etna-team/etna/issues/400 (labelled a bug: the mean "is counting
including current timestamp. It should not do this"; a maintainer traced it to the
rolling ``MeanTransform`` under it). Here a noisy sum of two cycles, an MLP on the 8 last
values and the rolling mean of 4 values. Measured (seed 0, 300 steps): final training
loss 0.0009 against 0.045 for the fixed twin, which is the noise floor of a true forecast.
Fix: the rolling mean ends at the last known value (window shifted by one step).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = "[BUG] Target leakage in `MeanSegmentEncoderTransform`"
LINK = "https://github.com/etna-team/etna/issues/400"
EXPECTED = ("FEATURE_HOLDS_TARGET_VALUES", "TARGETS_IN_INPUTS")
STEPS = 600
LAGS = 8
MEAN_WINDOW = 4


def series(length=3000, seed=0):
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length, dtype=torch.float32)
    return (torch.sin(2 * torch.pi * t / 24) + 0.5 * torch.sin(2 * torch.pi * t / 60)
            + 0.2 * torch.randn(length, generator=g))


def rolling_mean(values, window, gap):
    """Mean of ``window`` values ending ``gap`` steps before each index (gap 0: at it)."""
    padded = torch.cat([values[:1].repeat(window + gap), values])
    sums = padded.cumsum(0)
    ends = torch.arange(len(values)) + window   # where values[i - gap] sits in ``padded``
    return (sums[ends] - sums[ends - window]) / window


def table(gap):
    """Rows (the LAGS previous values, the rolling mean) and their target y[t]."""
    y = series()
    mean = rolling_mean(y, MEAN_WINDOW, gap)
    t = torch.arange(LAGS + MEAN_WINDOW, len(y))
    lags = torch.stack([y[t - k] for k in range(1, LAGS + 1)], dim=1)
    return torch.cat([lags, mean[t, None]], dim=1), y[t]


def batches(x, y, steps, batch_size=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        rows = torch.randint(0, len(x), (batch_size,), generator=g)
        yield x[rows], y[rows]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    # BUG when not fixed: gap 0, the window's last value is y[t], the target itself
    x, y = table(gap=1 if fixed else 0)
    model = nn.Sequential(nn.Linear(LAGS + 1, 64), nn.ReLU(), nn.Linear(64, 1), nn.Flatten(0))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.functional.mse_loss, batches(x, y, steps), **watch)
