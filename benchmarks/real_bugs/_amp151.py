"""Pieces the batch-151 cases (mixed and reduced precision on CPU) share: the 8x8 digits
split into training and held-out rows, and held-out accuracy."""
import numpy as np
import torch

from benchmarks.real_bugs._common import classification

TRAIN_ROWS = 1400


def digits_split(seed=0):
    """(x_train, y_train, x_test, y_test): the digits shuffled by ``seed``, first 1400 rows
    to train on, the other 397 held out."""
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    train, test = order[:TRAIN_ROWS], order[TRAIN_ROWS:]
    return x[train], y[train], x[test], y[test]


def accuracy(model, x, y):
    """Share of rows whose arg-max prediction is the label (float32, no autocast)."""
    with torch.no_grad():
        return (model(x).float().argmax(-1) == y).float().mean().item()
