"""Data and loop pieces the reproduced reports share (kept small: each case shows its bug)."""
import os

import numpy as np
import torch

# minigrad's copy of the 8x8 digits, read directly (the cases need torch and NumPy only)
DIGITS = os.path.join(os.path.dirname(__file__), "..", "..", "minigrad", "data", "digits.npz")


def classification(images=False):
    """The digits as float32 tensors: x (N, 64) or (N, 1, 8, 8) in [0, 1], y int64 labels."""
    with np.load(DIGITS) as archive:
        x = archive["images"].astype(np.float32).reshape(-1, 64) / 16
        y = archive["labels"].astype(np.int64)
    if images:
        x = x.reshape(-1, 1, 8, 8)
    return torch.from_numpy(x), torch.from_numpy(y)


def binary():
    """Digits 0-4 against 5-9: x (N, 64), y float32 in {0, 1} (shape (N,))."""
    x, y = classification()
    return x, (y >= 5).float()


def regression():
    """Predict the digit's value (standardised) from its pixels: x (N, 64), y (N,) float32."""
    x, y = classification()
    value = y.float()
    return x, (value - value.mean()) / value.std()


def batches(x, y, steps, batch_size=64, seed=0):
    """``steps`` shuffled mini-batches, reshuffled every epoch, from a private generator."""
    rng = np.random.default_rng(seed)
    done, n = 0, len(x)
    while True:
        order = torch.from_numpy(rng.permutation(n))
        for start in range(0, n - batch_size + 1, batch_size):
            index = order[start:start + batch_size]
            yield x[index], y[index]
            done += 1
            if done == steps:
                return


def mlp(inputs=64, hidden=64, outputs=10):
    return torch.nn.Sequential(torch.nn.Linear(inputs, hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, outputs))
