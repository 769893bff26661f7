"""Pieces shared by real-bug batch 158 (memory-saving training code): the digits split into
training and held-out rows, and a held-out accuracy."""
import torch

from benchmarks.real_bugs._common import classification

HELD_OUT = 360


def digits_split():
    """(x_train, y_train, x_held_out, y_held_out): the last HELD_OUT digits held out."""
    x, y = classification()
    return x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]


def accuracy(model, x, y):
    """Share of rows whose argmax logit is the label, in eval mode and without gradients."""
    was_training = model.training
    model.eval()
    with torch.no_grad():
        share = float((model(x).argmax(-1) == y).float().mean())
    model.train(was_training)
    return round(share, 3)
