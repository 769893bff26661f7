"""Shared pieces of the hand-written normalisation cases (real-bug batch 213): the digits
split into training and held-out rows, the ordinary watched loop, and the held-out accuracy.
Each case writes its own normalisation layer (that is where its bug lives)."""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

HELD_OUT = 397


def digits(images=False):
    """(x, y) training rows and (x, y) held-out rows of the 8x8 digits."""
    x, y = classification(images=images)
    return (x[:-HELD_OUT], y[:-HELD_OUT]), (x[-HELD_OUT:], y[-HELD_OUT:])


def train(model, optimizer, rows, steps, **watch):
    """``steps`` shuffled batches of 64 training rows, cross-entropy, under ``nd.watch``."""
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(*rows, steps),
                         **watch)


def held_out_accuracy(model, rows, batch_size=None):
    """Accuracy on the held-out rows in eval mode, without gradients; ``batch_size``: the
    rows go through the model that many at a time (None: all at once)."""
    x, y = rows
    size = batch_size or len(x)
    model.eval()
    with torch.no_grad():
        predicted = torch.cat([model(x[i:i + size]).argmax(1) for i in range(0, len(x), size)])
    return round(float((predicted == y).float().mean()), 3)
