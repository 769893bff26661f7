"""Pieces the batch-212 probabilistic-regression cases share: a 1-D heteroscedastic set, a
1-D bimodal (two-branch) set for mixture density networks, a D-dimensional heteroscedastic
set, a small MLP trunk, and the held-out scores the bugs are judged by (Gaussian NLL,
mixture NLL, pinball loss). Everything draws from torch's global generator (seed it first)."""
import math

import torch
from torch import nn

N_TRAIN, N_TEST = 1024, 1024      # [design] rows of each set
BATCH = 128                       # [design] minibatch rows


def noise_std(x):
    """True noise scale of the heteroscedastic sets: 0.1 at the origin, 0.7 at |x| = 3."""
    return 0.1 + 0.2 * x.abs()


def hetero_1d():
    """(x_train, y_train), (x_test, y_test): y = sin(2x) + 0.5 x + noise_std(x) * N(0, 1),
    x uniform on [-3, 3], each (N, 1)."""
    def draw(n):
        x = torch.rand(n, 1) * 6 - 3
        return x, torch.sin(2 * x) + 0.5 * x + noise_std(x) * torch.randn(n, 1)
    return draw(N_TRAIN), draw(N_TEST)


def hetero_nd(dims=3):
    """As hetero_1d, but y has `dims` columns (each a shifted sine) sharing one noise scale."""
    shifts = torch.arange(dims, dtype=torch.float32)

    def draw(n):
        x = torch.rand(n, 1) * 6 - 3
        y = torch.sin(2 * x + shifts) + noise_std(x) * torch.randn(n, dims)
        return x, y
    return draw(N_TRAIN), draw(N_TEST)


def bimodal_1d():
    """A one-to-many set: y = +-(1 + 0.5 x) + 0.1 N(0, 1), the sign a fair coin, x in [-2, 2]."""
    def draw(n):
        x = torch.rand(n, 1) * 4 - 2
        sign = torch.randint(0, 2, (n, 1)).float() * 2 - 1
        return x, sign * (1 + 0.5 * x) + 0.1 * torch.randn(n, 1)
    return draw(N_TRAIN), draw(N_TEST)


def trunk(out, inputs=1, hidden=64):
    return nn.Sequential(nn.Linear(inputs, hidden), nn.Tanh(), nn.Linear(hidden, hidden),
                         nn.Tanh(), nn.Linear(hidden, out))


def minibatches(x, y, steps, batch=BATCH):
    """`steps` random minibatches (drawn from the global generator)."""
    for _ in range(steps):
        idx = torch.randint(0, len(x), (batch,))
        yield x[idx], y[idx]


def gaussian_nll(mean, std, y):
    """Mean held-out NLL (nats) of y under N(mean, std^2), summed over columns."""
    return float((torch.log(std) + 0.5 * math.log(2 * math.pi)
                  + (y - mean) ** 2 / (2 * std ** 2)).sum(-1).mean())


def mixture_nll(log_pi, mean, std, y):
    """Mean held-out NLL of y (N, D) under a mixture with log weights (N, K), means and
    isotropic stds (N, K, D) / (N, K, 1)."""
    comp = (-torch.log(std) - 0.5 * math.log(2 * math.pi)
            - (y.unsqueeze(1) - mean) ** 2 / (2 * std ** 2)).sum(-1)
    return float(-torch.logsumexp(log_pi + comp, dim=1).mean())


def pinball(pred, y, taus):
    """Mean pinball loss of quantile predictions (N, Q) at levels taus (Q,)."""
    err = y - pred
    return float(torch.maximum(taus * err, (taus - 1) * err).mean())
