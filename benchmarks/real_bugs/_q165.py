"""Shared pieces of real-bug batch 165 (quantisation-aware training and pruning): a held-out
split of the 8x8 digits and the accuracy of a model on it."""
import numpy as np
import torch

from benchmarks.real_bugs._common import classification

HELD_OUT = 397          # of the 1,797 digits; the other 1,400 train


def digits_split(seed=0):
    """(x_train, y_train, x_held, y_held): the digits shuffled by ``seed``."""
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    train, held = order[HELD_OUT:], order[:HELD_OUT]
    return x[train], y[train], x[held], y[held]


def accuracy(model, x, y):
    was_training = model.training
    model.eval()
    with torch.no_grad():
        correct = (model(x).argmax(dim=1) == y).float().mean().item()
    model.train(was_training)
    return round(correct, 4)
