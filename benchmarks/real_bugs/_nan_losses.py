"""Pieces real-bug batch 267 (beginner NaN losses, exploding losses and gradient clipping in
first training scripts) shares: epochs of shuffled mini-batches that keep the last, partial
batch (what a DataLoader does without ``drop_last``), a held-out R^2 that reads NaN as NaN,
and the 8x8 digits as raw counts (0-16 per pixel, as sklearn's load_digits gives them)."""
import numpy as np
import torch

from benchmarks.real_bugs._common import classification


def digit_counts():
    """(x, y): the digits' pixels as raw float32 counts in 0..16 (N, 64), int64 labels."""
    x, y = classification()
    return x * 16, y


def loader(n, steps, batch_size, seed=0):
    """``steps`` batches of row indices into ``n`` rows, reshuffled every epoch, the last
    batch of an epoch keeping whatever rows are left (no drop_last)."""
    rng = np.random.default_rng(seed)
    done = 0
    while True:
        order = torch.from_numpy(rng.permutation(n))
        for start in range(0, n, batch_size):
            yield order[start:start + batch_size]
            done += 1
            if done == steps:
                return


def r2(prediction, target):
    """Coefficient of determination (NaN when a prediction is not finite), 3 decimals."""
    prediction = prediction.detach().reshape(-1).double()
    target = target.reshape(-1).double()
    if not torch.isfinite(prediction).all():
        return float("nan")
    residual = ((target - prediction) ** 2).sum()
    total = ((target - target.mean()) ** 2).sum()
    return round(1 - (residual / total).item(), 3)
