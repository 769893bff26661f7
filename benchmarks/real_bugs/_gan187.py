"""What the GAN cases of real-bug batch 187 share: small fully connected GANs on the 8x8
digits (a generator from 16 noise values to 64 pixels in [0, 1], a discriminator / critic
from 64 pixels to one score), the split of the digits into the 1,400 the GAN trains on and
the 397 it never sees, and the held-out measure of what it learned: 512 samples drawn with a
fixed private noise generator, compared with the held-out digits by nearest neighbours."""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification

LATENT = 16
TRAIN = 1400


def digits():
    """(training digits (1400, 64), held-out digits (397, 64)), pixels in [0, 1]."""
    x, _ = classification()
    return x[:TRAIN], x[TRAIN:]


def real_batches(x, steps, batch_size=64):
    """``steps`` shuffled batches of training digits (labels dropped)."""
    for real, _ in batches(x, torch.zeros(len(x)), steps, batch_size):
        yield real


def generator():
    return nn.Sequential(nn.Linear(LATENT, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                         nn.Linear(128, 64), nn.Sigmoid())


def discriminator():
    return nn.Sequential(nn.Linear(64, 128), nn.LeakyReLU(0.2), nn.Linear(128, 128),
                         nn.LeakyReLU(0.2), nn.Linear(128, 1))


def noise(n):
    return torch.randn(n, LATENT)


def sample_distances(G, held_out, n=512, seed=1):
    """(fidelity, coverage): the mean distance from a sample to its nearest held-out digit
    (low: samples look like digits) and from a held-out digit to its nearest sample (low:
    the samples cover the digits). Real training digits score about 2.0 / 2.1 here."""
    draw = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        d = torch.cdist(G(torch.randn(n, LATENT, generator=draw)), held_out)
    return d.min(dim=1).values.mean().item(), d.min(dim=0).values.mean().item()


def record(mon, G, held_out):
    """Sets the held-out measures on the monitor and returns it."""
    mon.sample_fidelity, mon.sample_coverage = sample_distances(G, held_out)
    return mon
