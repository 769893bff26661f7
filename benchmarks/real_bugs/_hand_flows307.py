"""What batch 307's normalizing flows share: beginner flows written by hand from the first
tutorials (RealNVP / Glow-style), fitted by maximum likelihood to the 8x8 digits' pixel
levels. Each case keeps its own layers and its bug; this module holds the data, the
squeeze to channels and the pieces of the change-of-variables loss.

The digits store each pixel as one of 17 levels (0..16). A density model needs continuous
data, so the usual recipe adds uniform noise inside each level's bin ("dequantisation"):
y = (level + u) / 17 - 0.5 with u ~ U[0, 1), values in [-0.5, 0.5). The held-out score is
the model's negative log-likelihood of dequantised held-out images, in nats per pixel."""
import math

import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

LEVELS = 17
HELD_OUT = 297          # the last rows of one fixed shuffle; the rest train


def pixel_levels():
    """(train, held_out): the digits' integer pixel levels 0..16 as float (N, 1, 8, 8),
    split by one shuffle from a seeded generator."""
    x, _ = classification(images=True)
    levels = torch.round(x * 16)
    order = torch.from_numpy(np.random.default_rng(0).permutation(len(levels)))
    levels = levels[order]
    return levels[:-HELD_OUT], levels[-HELD_OUT:]


def dequantise(levels, rng):
    """Uniform noise inside each level's bin, scaled to [-0.5, 0.5)."""
    noise = torch.from_numpy(rng.random(levels.shape).astype(np.float32))
    return (levels + noise) / LEVELS - 0.5


def squeeze(x):
    """(B, 1, 8, 8) -> (B, 4, 4, 4): each 2x2 patch becomes four channels (invertible, its
    log-determinant is 0)."""
    b = x.shape[0]
    x = x.reshape(b, 1, 4, 2, 4, 2).permute(0, 1, 3, 5, 2, 4)
    return x.reshape(b, 4, 4, 4)


def conditioner(hidden=16):
    """The coupling's network: 2 kept channels -> log-scale and shift for the other 2."""
    net = nn.Sequential(nn.Conv2d(2, hidden, 3, padding=1), nn.ReLU(),
                        nn.Conv2d(hidden, hidden, 1), nn.ReLU(),
                        nn.Conv2d(hidden, 4, 3, padding=1))
    nn.init.zeros_(net[-1].weight)          # every coupling starts as the identity
    nn.init.zeros_(net[-1].bias)
    return net


def standard_normal_log_density(z):
    """log N(z; 0, I) of each sample, summed over all its values."""
    z = z.flatten(1)
    return -0.5 * (z ** 2).sum(1) - 0.5 * z.shape[1] * math.log(2 * math.pi)


def batch_rows(n, steps, batch, seed):
    """``steps`` batches of row indices, reshuffled each epoch (a seeded numpy generator)."""
    rng = np.random.default_rng(seed)
    done = 0
    while done < steps:
        order = torch.from_numpy(rng.permutation(n))
        for start in range(0, n - batch + 1, batch):
            yield order[start:start + batch]
            done += 1
            if done == steps:
                return


def nats_per_pixel(log_likelihood):
    """Mean negative log-likelihood of a batch, per pixel (64 of them)."""
    return float(-log_likelihood.mean() / 64)
