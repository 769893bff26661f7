"""Pieces the batch-157 data-pipeline cases share: the 8x8 digits split into training and
held-out rows, a torch ``Dataset`` over them served by a real ``DataLoader`` (main
process), the small MLP they train and its held-out accuracy."""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

HELD_OUT = 497               # the last rows of the digits, never trained on


def digits_split():
    """(x_train, y_train, x_test, y_test) as float32 (N, 64) / int64 tensors."""
    x, y = classification()
    return x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]


def mlp(hidden=64):
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, 10))


def loader_generator(seed=0):
    """The DataLoader's shuffling generator, seeded through torch.manual_seed's path so
    that a seed shift moves it too."""
    return torch.Generator().manual_seed(int(np.random.default_rng(seed).integers(1 << 31)))


@torch.no_grad()
def accuracy(model, x, y):
    return (model(x).argmax(1) == y).float().mean().item()
