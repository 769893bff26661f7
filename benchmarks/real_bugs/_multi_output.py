"""Shared pieces of real-bug batch 269 (beginner multi-output regression and target scaling
from first tutorials): small synthetic tables whose targets are the ones the reports had (two
unrelated target columns, a utility score in [-0.454, 1], the sine of a sum of -1/0/1
entries), a shuffled train/held-out split, and R^2 (per target column, then averaged)."""
import numpy as np
import torch


def two_targets(n=1200, features=8, seed=0):
    """x (n, features) standard normal; y (n, 2): two unrelated, standardised targets, each
    read from its own inputs (the first from x0-x2, the second from x3-x5)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, features))
    first = np.tanh(x[:, 0] + 0.5 * x[:, 1]) + 0.4 * x[:, 2]
    second = np.sin(1.5 * x[:, 3]) - 0.5 * x[:, 4] * x[:, 5]
    y = np.stack([first, second], axis=1) + 0.1 * rng.standard_normal((n, 2))
    y = (y - y.mean(0)) / y.std(0)
    return torch.from_numpy(x.astype(np.float32)), torch.from_numpy(y.astype(np.float32))


def utility_scores(n=1000, seed=0):
    """x (n, 3) standardised inputs; y (n,) a health-utility-like score in [-0.454, 1]
    (mostly positive, about a quarter of it below zero), as in the report's EQ-5D variable."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 3))
    score = 0.3 + 0.45 * np.tanh(x[:, 0] - 0.6 * x[:, 1]) + 0.2 * x[:, 2] \
        + 0.08 * rng.standard_normal(n)
    y = np.clip(score, -0.454, 1.0)
    return torch.from_numpy(x.astype(np.float32)), torch.from_numpy(y.astype(np.float32))


def sine_of_sums(n=1000, seed=0):
    """x (n, 5): four entries drawn from {-1, 0, 1} and a constant bias input of 1;
    y (n,) = sin(sum of the four entries), so about half the targets are negative."""
    rng = np.random.default_rng(seed)
    entries = rng.integers(-1, 2, (n, 4)).astype(np.float64)
    x = np.concatenate([entries, np.ones((n, 1))], axis=1)
    y = np.sin(entries.sum(1))
    return torch.from_numpy(x.astype(np.float32)), torch.from_numpy(y.astype(np.float32))


def split(x, y, held_out=0.25, seed=0):
    """Shuffled (x_train, y_train, x_test, y_test)."""
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    cut = int(len(x) * (1 - held_out))
    x, y = x[order], y[order]
    return x[:cut], y[:cut], x[cut:], y[cut:]


def r2(prediction, target):
    """R^2 of ``prediction`` against ``target`` ((N,) or (N, K): the mean over the K
    columns), rounded to 3 places; NaN when a prediction is not finite."""
    prediction = prediction.detach().double().reshape(len(target), -1)
    target = target.double().reshape(len(target), -1)
    if not torch.isfinite(prediction).all():
        return float("nan")
    residual = ((target - prediction) ** 2).sum(0)
    total = ((target - target.mean(0)) ** 2).sum(0)
    return round((1 - residual / total).mean().item(), 3)
