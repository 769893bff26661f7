"""What the flow-matching cases of real-bug batch 342 share: a two-moons cloud in 2-D (drawn
with a fixed NumPy seed, a held-out draw kept apart), a small MLP velocity field v(x, t), an
Euler sampler from standard Gaussian noise at t = 0 to data at t = 1, and the energy distance
between the samples and the held-out points (0 for a perfect sampler; lower is better)."""
import numpy as np
import torch
from torch import nn


def moons(n, seed):
    """``n`` points of two interleaved half circles with a little noise, roughly centred."""
    rng = np.random.default_rng(seed)
    half = n // 2
    angle = rng.uniform(0, np.pi, n)
    upper = np.stack([np.cos(angle[:half]), np.sin(angle[:half])], 1)
    lower = np.stack([1 - np.cos(angle[half:]), 0.5 - np.sin(angle[half:])], 1)
    points = np.concatenate([upper, lower]) + rng.normal(0, 0.06, (n, 2))
    points = (points - np.array([0.5, 0.25])) * 1.5
    return torch.from_numpy(points[rng.permutation(n)].astype(np.float32))


def data(seed=0):
    """(training points, held-out points): 4,096 and 1,024 from separate generators."""
    return moons(4096, seed), moons(1024, seed + 7)


class Velocity(nn.Module):
    """v(x, t): the point and its time, side by side, through three hidden layers."""
    def __init__(self, hidden=128):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, hidden), nn.SiLU(), nn.Linear(hidden, hidden),
                                 nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(),
                                 nn.Linear(hidden, 2))

    def forward(self, x, t):
        return self.net(torch.cat([x, t.reshape(-1, 1)], 1))


def euler(model, noise, steps=50):
    """Integrate dx/dt = v(x, t) from t = 0 (the noise) to t = 1 in ``steps`` Euler steps."""
    x = noise
    with torch.no_grad():
        for i in range(steps):
            t = torch.full((len(x),), i / steps)
            x = x + model(x, t) / steps
    return x


def gaussian_noise(n=1024, seed=5):
    return torch.randn(n, 2, generator=torch.Generator().manual_seed(seed))


def energy_distance(samples, held_out):
    """2 E|X - Y| - E|X - X'| - E|Y - Y'| between the two point clouds."""
    cross = torch.cdist(samples, held_out).mean()
    return (2 * cross - torch.cdist(samples, samples).mean()
            - torch.cdist(held_out, held_out).mean()).item()
