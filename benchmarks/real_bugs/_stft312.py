"""Shared pieces of real-bug batch 312 (beginner speech enhancement on spectrogram masks):
noisy synthetic voices, the STFT a first tutorial uses, and a small mask estimator.

The voices are batch 133's (benchmarks/real_bugs/_separation.py: three harmonics of a random
fundamental under a smooth loudness envelope, 512 samples) under white noise at 0 dB. The
STFT is torch.stft with a Hann window of 64 samples and a hop of 16 (33 bins x 33 frames,
centred, so torch.istft gives the clip back exactly). The mask estimator reads the noisy
log-magnitude (log1p) and predicts one sigmoid gain per time-frequency bin (per source, for
a separator) with two 1-D convolutions over time (the bins as channels), as a first
enhancement tutorial writes it. ``two_voices`` mixes two voices for the separation cases.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._separation import LENGTH, snr, voices

N_FFT, HOP = 64, 16
BINS = N_FFT // 2 + 1
HIDDEN = 96

__all__ = ["LENGTH", "N_FFT", "HOP", "BINS", "snr", "noisy_clips", "two_voices", "stft", "istft",
           "MaskNet"]


def noisy_clips(n, rng):
    """(noisy, clean, noise), each (n, LENGTH) float32: white noise at 0 dB SNR."""
    clean = voices(n, rng)
    noise = torch.from_numpy(rng.normal(0, 1, clean.shape).astype(np.float32))
    noise = noise * clean.norm(dim=1, keepdim=True) / noise.norm(dim=1, keepdim=True)
    return clean + noise, clean, noise


def two_voices(n, rng):
    """(mixture (n, LENGTH), sources (n, 2, LENGTH)): two voices added at equal level."""
    first, second = voices(n, rng), voices(n, rng)
    second = second * first.norm(dim=1, keepdim=True) / second.norm(dim=1, keepdim=True)
    sources = torch.stack([first, second], 1)
    return sources.sum(1), sources


def stft(x):
    """(B, LENGTH) -> complex (B, BINS, frames)."""
    return torch.stft(x, N_FFT, HOP, window=torch.hann_window(N_FFT), return_complex=True)


def istft(spec):
    """complex (B, BINS, frames) -> (B, LENGTH)."""
    return torch.istft(spec, N_FFT, HOP, window=torch.hann_window(N_FFT), length=LENGTH)


class MaskNet(nn.Module):
    """Noisy magnitude (B, BINS, frames) -> a sigmoid mask of the same shape, or with
    ``sources`` > 1 one mask per source, (B, sources, BINS, frames)."""

    def __init__(self, sources=1):
        super().__init__()
        self.sources = sources
        self.conv1 = nn.Conv1d(BINS, HIDDEN, 5, padding=2)
        self.conv2 = nn.Conv1d(HIDDEN, HIDDEN, 5, padding=2)
        self.out = nn.Conv1d(HIDDEN, BINS * sources, 1)

    def forward(self, magnitude):
        h = torch.relu(self.conv1(torch.log1p(magnitude)))
        h = torch.relu(self.conv2(h))
        masks = torch.sigmoid(self.out(h))
        if self.sources == 1:
            return masks
        return masks.view(masks.shape[0], self.sources, BINS, -1)
