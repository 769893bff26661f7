"""Pieces the batch-182 calibration and predictive-uncertainty cases share: a 1-D
heteroscedastic regression set (noise that grows with |x|), a mean-and-variance network, and
the scores a predictive Gaussian is judged by (held-out NLL, interval coverage). The digits
cases use benchmarks/real_bugs/_calibration_digits.py."""
import math

import torch
import torch.nn.functional as F
from torch import nn

N_TRAIN, N_TEST = 1024, 1024      # [design] rows of the 1-D regression set
LOW, HIGH = -3.0, 3.0             # [design] the inputs' range
Z90 = 1.6449                      # the two-sided 90% quantile of a standard normal


def noise_std(x):
    """The data's true noise scale: 0.05 at the origin, 1.55 at |x| = 3 (heteroscedastic)."""
    return 0.05 + 0.5 * x.abs()


def regression_data():
    """(x_train, y_train), (x_test, y_test): y = sin(2x) + 0.5 x + noise_std(x) * N(0, 1),
    x uniform on [-3, 3], each (N, 1). Drawn from torch's global generator (seed it first)."""
    def draw(n):
        x = torch.rand(n, 1) * (HIGH - LOW) + LOW
        y = torch.sin(2 * x) + 0.5 * x + noise_std(x) * torch.randn(n, 1)
        return x, y
    return draw(N_TRAIN), draw(N_TEST)


class MeanVariance(nn.Module):
    """An MLP with two heads: the mean and the variance (softplus, floored at 1e-4)."""

    def __init__(self, hidden=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden),
                                  nn.Tanh())
        self.mean = nn.Linear(hidden, 1)
        self.variance = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(x)
        return self.mean(h), F.softplus(self.variance(h)) + 1e-4


def gaussian_nll(mean, variance, y):
    """The mean negative log-likelihood (nats) of y under N(mean, variance), constant kept."""
    return float((0.5 * torch.log(2 * math.pi * variance)
                  + (y - mean) ** 2 / (2 * variance)).mean())


def coverage90(mean, variance, y):
    """The fraction of y inside the central 90% interval of N(mean, variance) (0.90 ideal)."""
    return float(((y - mean).abs() <= Z90 * variance.sqrt()).float().mean())
