"""Pieces the multi-task cases of batch 161 share: the 8x8 digits split into training rows and
297 held-out rows, a shared encoder, and held-out scores (each case shows its own bug)."""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification, index_batches

HELD_OUT = 297


def digits():
    """(x_train, y_train, x_held, y_held): the last 297 digits held out."""
    x, y = classification()
    return x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]


def encoder(width=64, out=32):
    """The shared trunk every head reads."""
    return nn.Sequential(nn.Linear(64, width), nn.ReLU(), nn.Linear(width, out), nn.ReLU())


def accuracy(logits, labels):
    return round(float((logits.argmax(1) == labels).float().mean()), 3)


def rows(n, steps, batch_size=64, seed=0):
    """``steps`` shuffled index batches (reshuffled every epoch)."""
    return index_batches(n, steps, batch_size, seed)
