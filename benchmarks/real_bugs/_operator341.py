"""Pieces the batch-341 neural-operator cases share: periodic random fields (a Gaussian
random field drawn from a few low Fourier modes, with a fixed generator) and the per-sample
relative L2 error the operator-learning papers report."""
import math

import numpy as np
import torch


def random_fields_1d(count, points=64, modes=8, decay=1.5, seed=0):
    """(count, points) periodic fields on [0, 1): sum of sines and cosines of the first
    ``modes`` wavenumbers with amplitudes falling like k^-decay."""
    rng = np.random.default_rng(seed)
    x = np.arange(points) / points
    k = np.arange(1, modes + 1)
    a = rng.normal(size=(count, modes)) * k ** -decay
    b = rng.normal(size=(count, modes)) * k ** -decay
    phase = 2 * math.pi * k[None, :, None] * x[None, None, :]
    u = (a[:, :, None] * np.cos(phase) + b[:, :, None] * np.sin(phase)).sum(1)
    return torch.tensor(u, dtype=torch.float32)


def random_fields_2d(count, size=16, modes=3, seed=0):
    """(count, size, size) periodic fields: every wavenumber pair (k1, k2) with |k1| and
    |k2| up to ``modes`` (both signs: waves run along both diagonals), amplitudes
    1 / (1 + |k|^2), the whole set scaled to unit standard deviation."""
    rng = np.random.default_rng(seed)
    grid = np.arange(size) / size
    x1, x2 = np.meshgrid(grid, grid, indexing="ij")
    u = np.zeros((count, size, size))
    for k1 in range(-modes, modes + 1):
        for k2 in range(0, modes + 1):
            if k2 == 0 and k1 <= 0:
                continue                    # each real wave once (and no constant)
            scale = 1.0 / (1.0 + k1 * k1 + k2 * k2)
            a, b = rng.normal(size=(2, count, 1, 1)) * scale
            phase = 2 * math.pi * (k1 * x1 + k2 * x2)
            u += a * np.cos(phase) + b * np.sin(phase)
    u /= u.std()
    return torch.tensor(u, dtype=torch.float32)


def relative_l2(pred, target):
    """Per-sample ||pred - target|| / ||target||, averaged over the samples."""
    pred, target = pred.reshape(len(pred), -1), target.reshape(len(target), -1)
    return ((pred - target).norm(dim=1) / target.norm(dim=1)).mean()
