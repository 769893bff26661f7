"""Pieces real-bug batch 241 (beginner GANs from first tutorials) shares: the 8x8 digits
split into the 1,400 a GAN trains on and the 397 it never sees, shuffled batches of them
(flat (B, 64) or as (B, 1, 8, 8) images), a fully connected and a DCGAN-style generator and
discriminator with the output activation left to the case, and the held-out measure of
what a generator learned: samples compared with the held-out digits by nearest
neighbours, in pixel space [0, 1]. Each case keeps its own loss, labels and bug."""
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
    """``steps`` shuffled batches of rows of ``x`` (labels dropped), reshuffled every epoch."""
    for real, _ in batches(x, torch.zeros(len(x)), steps, batch_size):
        yield real


def noise(n):
    return torch.randn(n, LATENT)


def mlp_generator(output=None):
    """16 noise values -> 64 pixels through two hidden layers; ``output`` the last
    activation (nn.Sigmoid(), nn.Tanh(), ...)."""
    layers = [nn.Linear(LATENT, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
              nn.Linear(128, 64)]
    return nn.Sequential(*layers, *([output] if output is not None else []))


def mlp_discriminator(output=None):
    """64 pixels -> one score (a logit unless ``output`` adds an activation)."""
    layers = [nn.Linear(64, 128), nn.LeakyReLU(0.2), nn.Linear(128, 128), nn.LeakyReLU(0.2),
              nn.Linear(128, 1)]
    return nn.Sequential(*layers, *([output] if output is not None else []))


def dcgan_generator(output=None):
    """DCGAN-style: noise -> 64 x 2 x 2 -> transposed convolutions with batch norm -> a
    (B, 1, 8, 8) image; ``output`` the last activation."""
    layers = [nn.Linear(LATENT, 64 * 2 * 2), nn.Unflatten(1, (64, 2, 2)), nn.BatchNorm2d(64),
              nn.ReLU(), nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
              nn.ConvTranspose2d(32, 1, 4, 2, 1)]
    return nn.Sequential(*layers, *([output] if output is not None else []))


def dcgan_discriminator():
    """DCGAN-style: (B, 1, 8, 8) -> strided convolutions, leaky ReLU -> one logit."""
    return nn.Sequential(nn.Conv2d(1, 32, 4, 2, 1), nn.LeakyReLU(0.2),
                         nn.Conv2d(32, 64, 4, 2, 1), nn.BatchNorm2d(64), nn.LeakyReLU(0.2),
                         nn.Flatten(), nn.Linear(64 * 2 * 2, 1))


def sample_distances(G, held_out, to_pixels=None, n=512):
    """(fidelity, coverage): the mean distance from a sample to its nearest held-out digit
    (low: samples look like digits) and from a held-out digit to its nearest sample (low:
    the samples cover the digits). Samples are drawn with the global generator (call it
    after training), put in eval mode, mapped to pixels by ``to_pixels`` (the user's own
    conversion for display; default: as they come) and clipped to [0, 1] as a display
    would. 512 real training digits score about 1.4 / 1.3 here."""
    was_training = G.training
    G.eval()
    with torch.no_grad():
        samples = G(noise(n)).reshape(n, 64)
    G.train(was_training)
    if to_pixels is not None:
        samples = to_pixels(samples)
    d = torch.cdist(samples.clamp(0, 1), held_out)
    return d.min(dim=1).values.mean().item(), d.min(dim=0).values.mean().item()


def record(mon, G, held_out, to_pixels=None):
    """Sets the held-out measures on the monitor and returns it."""
    mon.sample_fidelity, mon.sample_coverage = sample_distances(G, held_out, to_pixels)
    return mon
