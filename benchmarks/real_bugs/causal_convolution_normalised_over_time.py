"""A "causal" convolutional forecaster (convolutions padded on the left only) whose
normalisation layers take their statistics over channels AND time frames (a global layer
norm, ``GroupNorm(1, channels)`` on (batch, channels, time)). Every frame is then shifted
and scaled by the mean and spread of the whole window, the frames still to come included,
so the output at frame t reads where the series goes after t: the model is not causal,
trains to a loss it cannot reach when it forecasts for real, frame by frame.

Reported: "BSRNN with `causal=True` is not causal" -
https://github.com/espnet/espnet/issues/5900 (labelled Bug: "The first non-causal
operation seems to be the normalization layers in the band-split module, which calculate
statistics over time frames"; the maintainers: only a cumulative or frame-wise norm makes
the model fully causal). Here a random walk with a daily cycle, a two-layer causal
convolution predicting the next value at every frame (its training loss, 0.004, is below
the fixed twin's 0.006, but forecasting frame by frame from the past only it errs 0.022
against the fixed twin's 0.006, worse than repeating the last value, 0.035).
Fix: a frame-wise normalisation (statistics over the channels of each frame only).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = "BSRNN with `causal=True` is not causal"
LINK = "https://github.com/espnet/espnet/issues/5900"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 150
LENGTH = 48
KERNEL = 3


def random_walk(length=6000, seed=0):
    """A random walk plus a daily cycle: where it goes next is not in its past."""
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length, dtype=torch.float32)
    walk = torch.cumsum(0.3 * torch.randn(length, generator=g), 0)
    return walk / walk.std() + torch.sin(2 * torch.pi * t / 24)


def windows(steps, batch_size=32, seed=0):
    """(inputs (B, LENGTH), targets (B, LENGTH)): each window and the next value at every
    frame, each window re-centred on its first value (the forecaster sees levels from there)."""
    values = random_walk()
    g = torch.Generator().manual_seed(seed + 1)
    for _ in range(steps):
        starts = torch.randint(0, len(values) - LENGTH - 1, (batch_size,), generator=g)
        index = starts[:, None] + torch.arange(LENGTH + 1)
        window = values[index] - values[starts][:, None]
        yield window[:, :-1], window[:, 1:]


class FrameNorm(nn.Module):
    """Normalises each frame over its channels only: causal."""
    def __init__(self, channels):
        super().__init__()
        self.norm = nn.LayerNorm(channels)

    def forward(self, x):                       # (batch, channels, time)
        return self.norm(x.transpose(1, 2)).transpose(1, 2)


class CausalBlock(nn.Module):
    def __init__(self, channels_in, channels, frame_wise):
        super().__init__()
        self.pad = nn.ConstantPad1d((KERNEL - 1, 0), 0.0)    # left only: causal
        self.conv = nn.Conv1d(channels_in, channels, KERNEL)
        # BUG when not frame_wise: statistics over channels and every time frame
        self.norm = FrameNorm(channels) if frame_wise else nn.GroupNorm(1, channels)

    def forward(self, x):
        return torch.relu(self.norm(self.conv(self.pad(x))))


class CausalForecaster(nn.Module):
    def __init__(self, frame_wise, channels=32):
        super().__init__()
        self.blocks = nn.Sequential(CausalBlock(1, channels, frame_wise),
                                    CausalBlock(channels, channels, frame_wise))
        self.head = nn.Conv1d(channels, 1, 1)

    def forward(self, series):                  # (batch, time) -> (batch, time)
        return self.head(self.blocks(series.unsqueeze(1))).squeeze(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = CausalForecaster(frame_wise=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.functional.mse_loss, windows(steps), **watch)
