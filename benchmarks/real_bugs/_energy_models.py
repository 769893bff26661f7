"""Shared pieces of real-bug batch 130 (energy-based models and score matching): a 2-D
mixture of eight Gaussians on a ring, a small energy network, Langevin sampling, and the
held-out measures - the negative log-likelihood of held-out points under the energy
normalised on a grid (exact enough in 2-D), and how far Langevin samples land from the
data's modes."""
import math

import numpy as np
import torch
from torch import nn

MODES = 8
RADIUS = 2.0
SPREAD = 0.25
BOX = 4.0            # the grid that normalises exp(-E) spans [-BOX, BOX]^2
GRID = 121


def centres():
    angles = torch.arange(MODES, dtype=torch.float32) * (2 * math.pi / MODES)
    return RADIUS * torch.stack([angles.cos(), angles.sin()], dim=1)


def ring(n, seed):
    """n points of the ring mixture from a NumPy generator seeded with ``seed``."""
    rng = np.random.default_rng(seed)
    which = torch.from_numpy(rng.integers(0, MODES, n))
    noise = torch.from_numpy(rng.standard_normal((n, 2)).astype(np.float32))
    return centres()[which] + SPREAD * noise


def data(train=2048, held_out=1024):
    return ring(train, 0), ring(held_out, 1)


def batches(x, steps, batch_size=128, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        yield x[torch.from_numpy(rng.integers(0, len(x), batch_size))]


class Energy(nn.Module):
    """E(x): a scalar per point; low energy where the data is. ``out_bias=False`` for
    score-matching losses, which read only dE/dx: an output bias never enters them."""

    def __init__(self, hidden=64, out_bias=True):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.SiLU(), nn.Linear(hidden, hidden),
                                 nn.SiLU(), nn.Linear(hidden, 1, bias=out_bias))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def energy_gradient(model, x, create_graph=False):
    """dE/dx at x (the energy's gradient: minus the model's score)."""
    x = x.detach().requires_grad_(True)
    energy = model(x).sum()
    return torch.autograd.grad(energy, x, create_graph=create_graph)[0]


def langevin(model, x, steps, step_size, noise_std=None):
    """Unadjusted Langevin on exp(-E): x - step * dE/dx + sqrt(2 step) * N(0, I), or the
    given noise std. The model's parameters are not differentiated."""
    noise_std = math.sqrt(2 * step_size) if noise_std is None else noise_std
    for _ in range(steps):
        x = (x - step_size * energy_gradient(model, x) + noise_std * torch.randn_like(x))
    return x.detach()


def held_out_nll(model, x):
    """Mean -log p(x) of held-out points, p = exp(-E) / Z with Z summed on a grid."""
    with torch.no_grad():
        axis = torch.linspace(-BOX, BOX, GRID)
        grid = torch.cartesian_prod(axis, axis)
        cell = (axis[1] - axis[0]).item() ** 2
        log_z = torch.logsumexp(-model(grid), dim=0) + math.log(cell)
        return (model(x) + log_z).mean().item()


def mode_distance(samples):
    """Mean distance of samples to the nearest mode centre (data alone give about
    SPREAD * sqrt(pi / 2) = 0.31)."""
    return torch.cdist(samples, centres()).min(dim=1).values.mean().item()
