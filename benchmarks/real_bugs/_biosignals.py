"""Synthetic multichannel biosignal windows for classification (real-bug batch 138).

A window is (channels, samples): per channel a few oscillations whose amplitudes depend on
the class (as band power separates sleep stages, motor-imagery rhythms or activities), a
random phase per window, and white noise. ``ConvNet`` is the usual small temporal
classifier: two 1-D convolutions over time, ReLU, an average over time (band-power-like
features), a linear read-out.
"""
import numpy as np
import torch
from torch import nn


def oscillations(amplitudes, frequencies, samples, rate, rng, noise=1.0):
    """Windows of summed sinusoids: ``amplitudes`` (windows, channels, bands), one frequency
    (Hz) per band, a random phase per window, channel and band, white noise of sd
    ``noise``; float32 array (windows, channels, samples)."""
    windows, channels, bands = amplitudes.shape
    t = np.arange(samples) / rate
    phase = rng.uniform(0, 2 * np.pi, (windows, channels, bands, 1))
    waves = np.sin(2 * np.pi * np.asarray(frequencies)[None, None, :, None] * t + phase)
    x = (amplitudes[..., None] * waves).sum(2)
    return (x + noise * rng.standard_normal(x.shape)).astype(np.float32)


class ConvNet(nn.Module):
    def __init__(self, channels, classes, hidden=16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(channels, hidden, 7, padding=3), nn.ReLU(),
            nn.Conv1d(hidden, hidden, 5, padding=2), nn.ReLU())
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.head(self.features(x).mean(-1))


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        hit = (model(x).argmax(-1) == y).float().mean().item()
    model.train()
    return round(hit, 3)
