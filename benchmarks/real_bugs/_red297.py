"""Shared pieces of real-bug batch 297 (beginner loss reductions and batch-size mistakes in
first training scripts): the 8x8 digits cut into 1,500 training rows and 297 held-out rows,
the digits as four yes/no attributes (a small multi-label task), and held-out metrics."""
import torch

from benchmarks.real_bugs._common import classification

TRAIN_ROWS = 1500


def split():
    """(x_train, y_train, x_held_out, y_held_out): the digits' first 1,500 rows and the rest."""
    x, y = classification()
    return x[:TRAIN_ROWS], y[:TRAIN_ROWS], x[TRAIN_ROWS:], y[TRAIN_ROWS:]


def attributes(digit):
    """Four yes/no attributes of each digit, (N, 4) float32: even, five or more, prime, and
    drawn with a closed loop (0, 6, 8, 9)."""
    d = digit.long()
    even = d % 2 == 0
    high = d >= 5
    prime = (d == 2) | (d == 3) | (d == 5) | (d == 7)
    loop = (d == 0) | (d == 6) | (d == 8) | (d == 9)
    return torch.stack([even, high, prime, loop], dim=1).float()


@torch.no_grad()
def accuracy(model, x, y):
    model.eval()
    correct = (model(x).argmax(-1) == y).float().mean().item()
    model.train()
    return correct


@torch.no_grad()
def label_accuracy(model, x, targets):
    """The share of (row, attribute) pairs a multi-label model gets right (logit > 0)."""
    model.eval()
    logits = model(x)
    model.train()
    if not torch.isfinite(logits).all():
        return 0.0
    return ((logits > 0).float() == targets).float().mean().item()


@torch.no_grad()
def r_squared(model, x, y):
    """1 - held-out squared error / the held-out targets' variance (nan outputs: -inf)."""
    model.eval()
    pred = model(x).reshape(-1)
    model.train()
    if not torch.isfinite(pred).all():
        return float("-inf")
    return 1.0 - ((pred - y) ** 2).mean().item() / y.var(unbiased=False).item()
