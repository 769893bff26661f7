"""Prediction-interval pieces for batch 331's cases: a noisy tabular target whose spread
grows with one feature, an MLP, pinball loss and the held-out coverage of an interval."""
import numpy as np
import torch
from torch import nn

FEATURES = 4


def table(rows, seed):
    """x (rows, 4) standard normal; y = sin(x1) + 0.5 x2 + noise whose std runs 0.2..1.0
    with x0. float32 tensors, drawn from ``np.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, FEATURES)).astype(np.float32)
    spread = 0.2 + 0.8 / (1 + np.exp(-2 * x[:, 0]))
    y = np.sin(x[:, 1]) + 0.5 * x[:, 2] + spread * rng.standard_normal(rows)
    return torch.from_numpy(x), torch.from_numpy(y.astype(np.float32))


def mlp(outputs):
    return nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                         nn.Linear(64, outputs))


def pinball(predicted, y, levels):
    """Mean pinball loss of (N, K) predictions at K levels against (N,) targets."""
    error = y.unsqueeze(1) - predicted
    return torch.maximum(levels * error, (levels - 1) * error).mean()


def coverage(lower, upper, y):
    """Share of targets inside [lower, upper]."""
    return round(float(((y >= lower) & (y <= upper)).float().mean()), 3)
