"""Data and metrics shared by the hand-written-loss cases of batch 249 (beginner custom loss
functions copied from first tutorials: dice, focal, weighted cross-entropy, distance).

``imbalanced_digits`` keeps every training row of some digit classes and only a fraction
of the others (the rows kept drawn from ``np.random.default_rng``, which the benchmark's
seed shift moves); the held-out rows stay balanced, so a model that ignores the rare
classes shows it in its balanced accuracy. ``blob_positions`` is a small localisation task:
8x8 noisy images holding one bright blob (or none), the target its (row, column) scaled to
[0, 1], and a third column, 0 for an empty image.
"""
import numpy as np
import torch

from benchmarks.real_bugs._common import classification

HELD_OUT = 500          # the last rows of the digits, balanced, never trained on


def imbalanced_digits(rare=(5, 6, 7, 8, 9), keep=0.08, noise=0.0, seed=0):
    """(x, y, held_x, held_y): training rows with the ``rare`` classes cut to ``keep`` of
    their rows; ``noise``: std of Gaussian pixel noise added to every row (held-out too),
    which makes the digits harder to tell apart."""
    x, y = classification()
    rng = np.random.default_rng(seed)
    if noise:
        x = x + torch.from_numpy(rng.normal(0, noise, tuple(x.shape)).astype(np.float32))
    train_x, train_y = x[:-HELD_OUT], y[:-HELD_OUT]
    is_rare = torch.isin(train_y, torch.tensor(rare))
    kept = ~is_rare | torch.from_numpy(rng.random(len(train_y)) < keep)
    return train_x[kept], train_y[kept], x[-HELD_OUT:], y[-HELD_OUT:]


def inverse_frequency(y, classes):
    """Class weights 1 / frequency, scaled to mean 1 (the usual tutorial recipe)."""
    counts = torch.bincount(y, minlength=classes).float().clamp(min=1)
    weights = counts.sum() / counts
    return weights / weights.mean()


@torch.no_grad()
def balanced_accuracy(predicted, labels, classes):
    """Mean over the classes of the share of each class's rows predicted as that class."""
    recalls = [(predicted[labels == c] == c).float().mean().item()
               for c in range(classes) if (labels == c).any()]
    return round(sum(recalls) / len(recalls), 3)


def blob_positions(count, size=8, noise=0.3, empty=0.0, seed=0):
    """(images (count, size * size) float32, targets (count, 3) float32): one 3x3 bright
    blob centred at a uniform random pixel (clipped at the borders), plus noise; the
    target is the centre's (row, column) / (size - 1) and 1. A share ``empty`` of the
    images hold no blob: their target is (0, 0, 0), the last column saying "no blob"."""
    rng = np.random.default_rng(seed)
    centres = rng.integers(0, size, (count, 2))
    blank = rng.random(count) < empty
    centres[blank] = 0
    images = np.zeros((count, size, size), np.float32)
    for i, (r, c) in enumerate(centres):
        if not blank[i]:
            images[i, max(r - 1, 0):r + 2, max(c - 1, 0):c + 2] = 1.0
    images += rng.normal(0, noise, images.shape).astype(np.float32)
    targets = np.concatenate([centres / (size - 1), (~blank)[:, None]], 1).astype(np.float32)
    return torch.from_numpy(images.reshape(count, -1)), torch.from_numpy(targets)
