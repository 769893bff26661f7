"""Pieces shared by real-bug batch 336's hand-written Wasserstein GANs on the 8x8 digits:
an MLP generator (16 noise values to 64 pixels in [0, 1]) and an MLP critic with a raw,
unbounded score, the digits split into the rows the GAN trains on and held-out rows it is
scored against, and the held-out score itself. Each case writes its own loop."""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

LATENT = 16
TRAIN_ROWS = 1200


def digits():
    """(training digits (1200, 64), their labels, held-out digits (597, 64))."""
    x, y = classification()
    return x[:TRAIN_ROWS], y[:TRAIN_ROWS], x[TRAIN_ROWS:]


def generator():
    return nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(), nn.Linear(64, 64), nn.Sigmoid())


def critic():
    """A Wasserstein critic: no activation after its last layer."""
    return nn.Sequential(nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))


def noise(n):
    return torch.randn(n, LATENT)


def held_out_distances(G, held_out, n=512, seed=1):
    """(mean distance from a generated digit to its nearest held-out digit, mean distance
    from a held-out digit to its nearest generated one): low first = realistic samples, low
    second = the held-out digits covered. 512 samples from a private generator."""
    draw = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        d = torch.cdist(G(torch.randn(n, LATENT, generator=draw)), held_out)
    return round(d.min(dim=1).values.mean().item(), 2), \
        round(d.min(dim=0).values.mean().item(), 2)
