"""Pieces shared by real-bug batch 147 (training state carried between notebook cells and
re-runs): the digits split into a training and a held-out part, and held-out accuracy."""
import numpy as np
import torch

from benchmarks.real_bugs._common import classification

HELD_OUT = 397          # of the 1,797 digits; the other 1,400 train


def split(seed=0):
    """(x_train, y_train, x_held, y_held): the digits in a seeded random order, the last
    ``HELD_OUT`` kept out of training."""
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    train, held = order[:-HELD_OUT], order[-HELD_OUT:]
    return x[train], y[train], x[held], y[held]


@torch.no_grad()
def accuracy(model, x, y):
    was_training = model.training
    model.eval()
    value = (model(x).argmax(dim=1) == y).float().mean().item()
    model.train(was_training)
    return value
