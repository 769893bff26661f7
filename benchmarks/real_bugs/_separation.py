"""Shared pieces of real-bug batch 133 (speech enhancement and source separation): synthetic
"voices", a small Conv-TasNet-style masker and the signal-level losses and metrics.

A "voice" is a few harmonics of a random fundamental (0.03..0.15 cycles a sample) under a
smooth random loudness envelope, so two voices differ in pitch and in when they are loud.
The model follows Conv-TasNet's layout at toy size: a learned encoder (Conv1d, kernel 32,
hop 16), a separator of dilated 1-D convolutions with a normalisation in front that predicts
one mask per source on the encoder's frames, and a learned decoder (ConvTranspose1d) back to
samples.
"""
import numpy as np
import torch
from torch import nn

LENGTH = 512          # samples per clip
KERNEL, HOP = 32, 16   # encoder frame and hop (Conv-TasNet's L and L / 2)
BASIS = 64            # encoder channels (N)
HIDDEN = 48           # separator channels
EPS = 1e-8


def voices(n, rng, length=LENGTH, ramp=False):
    """(n, length) float32 voices: 3 harmonics of a random f0 under a smooth envelope.
    ``ramp``: the loudness envelope rises over the clip (quiet start, loud end) by a random
    factor up to 8, as a talker who starts softly does."""
    t = np.arange(length)
    f0 = rng.uniform(0.03, 0.15, (n, 1))
    out = np.zeros((n, length))
    for h in (1, 2, 3):
        phase = rng.uniform(0, 2 * np.pi, (n, 1))
        out += rng.uniform(0.3, 1.0, (n, 1)) / h * np.sin(2 * np.pi * f0 * h * t + phase)
    knots = rng.uniform(0.2, 1.0, (n, 6))
    envelope = np.stack([np.interp(t, np.linspace(0, length - 1, 6), k) for k in knots])
    if ramp:
        rise = rng.uniform(2.0, 8.0, (n, 1))
        envelope = envelope * (1.0 + (rise - 1.0) * t / (length - 1)) / rise
    return torch.from_numpy((out * envelope).astype(np.float32))


def si_snr(estimate, reference, eps=EPS):
    """Scale-invariant SNR in dB over the last axis, both signals made zero-mean."""
    estimate = estimate - estimate.mean(-1, keepdim=True)
    reference = reference - reference.mean(-1, keepdim=True)
    scale = (estimate * reference).sum(-1, keepdim=True) / (
        (reference ** 2).sum(-1, keepdim=True) + eps)
    target = scale * reference
    residual = estimate - target
    return 10 * torch.log10(((target ** 2).sum(-1) + eps) / ((residual ** 2).sum(-1) + eps))


def snr(estimate, reference, eps=EPS):
    """Plain SNR in dB over the last axis: the level of the estimate counts."""
    return 10 * torch.log10(((reference ** 2).sum(-1) + eps) /
                            (((estimate - reference) ** 2).sum(-1) + eps))


def pit_si_snr(estimates, references):
    """Utterance-level PIT for two sources: (B,) the best of the two assignments' mean
    SI-SNR, and (B, 2, T) the estimates put in the references' order."""
    straight = (si_snr(estimates[:, 0], references[:, 0]) +
                si_snr(estimates[:, 1], references[:, 1])) / 2
    swapped = (si_snr(estimates[:, 1], references[:, 0]) +
               si_snr(estimates[:, 0], references[:, 1])) / 2
    best = torch.maximum(straight, swapped)
    ordered = torch.where((swapped > straight)[:, None, None], estimates.flip(1), estimates)
    return best, ordered


class CumulativeLayerNorm(nn.Module):
    """Conv-TasNet's cLN: frame k is normalised by the statistics of frames 0..k only."""

    def __init__(self, channels):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(1, channels, 1))
        self.bias = nn.Parameter(torch.zeros(1, channels, 1))

    def forward(self, x):                               # (B, C, frames)
        channels = x.shape[1]
        count = torch.arange(1, x.shape[2] + 1, dtype=x.dtype) * channels
        mean = x.sum(1, keepdim=True).cumsum(2) / count
        power = (x ** 2).sum(1, keepdim=True).cumsum(2) / count
        var = (power - mean ** 2).clamp_min(0)
        return self.gain * (x - mean) / torch.sqrt(var + 1e-8) + self.bias


class CausalConv(nn.Module):
    """A dilated Conv1d padded on the left only: frame k reads frames <= k."""

    def __init__(self, channels, dilation, kernel=3):
        super().__init__()
        self.pad = (kernel - 1) * dilation
        self.conv = nn.Conv1d(channels, channels, kernel, dilation=dilation)

    def forward(self, x):
        return self.conv(nn.functional.pad(x, (self.pad, 0)))


class TasNet(nn.Module):
    """Encoder -> norm -> causal dilated conv stack -> one mask per source -> decoder.
    ``norm``: a module class for the separator's input normalisation."""

    def __init__(self, sources=2, norm=CumulativeLayerNorm, mask="sigmoid"):
        super().__init__()
        self.sources = sources
        self.encoder = nn.Conv1d(1, BASIS, KERNEL, stride=HOP, bias=False)
        self.norm = norm(BASIS)
        self.inp = nn.Conv1d(BASIS, HIDDEN, 1)
        self.blocks = nn.ModuleList([CausalConv(HIDDEN, d) for d in (1, 2, 4, 8)])
        self.out = nn.Conv1d(HIDDEN, sources * BASIS, 1)
        self.mask = mask
        self.decoder = nn.ConvTranspose1d(BASIS, 1, KERNEL, stride=HOP, bias=False)

    def masks(self, features):                          # (B, BASIS, frames)
        h = self.inp(self.norm(features))
        for block in self.blocks:
            h = h + torch.relu(block(h))
        m = self.out(h).view(h.shape[0], self.sources, BASIS, -1)
        return torch.sigmoid(m) if self.mask == "sigmoid" else torch.relu(m)

    def encode(self, mixture):                          # (B, T) -> (B, BASIS, frames)
        return torch.relu(self.encoder(mixture.unsqueeze(1)))

    def decode(self, masked):                           # (B, S, BASIS, frames) -> (B, S, T)
        b, s = masked.shape[:2]
        out = self.decoder(masked.reshape(b * s, BASIS, -1)).view(b, s, -1)
        return out[..., :LENGTH]

    def forward(self, mixture):                         # (B, T) -> (B, S, T)
        features = self.encode(mixture)
        return self.decode(self.masks(features) * features.unsqueeze(1))

