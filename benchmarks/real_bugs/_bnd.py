"""Shared pieces of real-bug batch 263 (batch normalisation and dropout in first training
scripts): a shuffled split of the 8x8 digits, a small conv net with batch norm, a toy
curve-parameter regression, and the held-out metrics the docstrings quote."""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import classification


def split_digits(images=False, held_out=400):
    """The digits in [0, 1], shuffled with torch's generator: (x_train, y_train, x_test,
    y_test), the last ``held_out`` rows held out."""
    x, y = classification(images=images)
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    return x[:-held_out], y[:-held_out], x[-held_out:], y[-held_out:]


def bn_cnn(dropout=0.0, outputs=10):
    """conv-BN-ReLU-pool twice (8x8 -> 4x4 -> 2x2 maps), then a small dense head with
    ``dropout`` before the output layer."""
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(128, 64), nn.ReLU(), nn.Dropout(dropout),
        nn.Linear(64, outputs))


def curve_parameters(n, points=20):
    """``n`` noisy curves y = a + b x + c sin(d x) sampled at ``points`` x in [-1, 1]:
    inputs (n, 2 * points) holding the x and y values, targets (n, 4) the parameters
    (a, b, c, d) in their own units (not standardised)."""
    a = torch.rand(n) * 4 + 8          # offsets around 10
    b = torch.randn(n) * 2
    c = torch.rand(n) * 2 + 0.5
    d = torch.rand(n) * 2 + 1
    xs = torch.rand(n, points) * 2 - 1
    ys = a[:, None] + b[:, None] * xs + c[:, None] * torch.sin(d[:, None] * math.pi * xs)
    ys = ys + 0.05 * torch.randn_like(ys)
    return torch.cat([xs, ys], 1), torch.stack([a, b, c, d], 1)


def accuracy(scores, y):
    return round(float((scores.argmax(1) == y).float().mean()), 3)
