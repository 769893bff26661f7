"""Pieces batch 247's Keras-to-PyTorch ports share: the digits split into a training part
and a held-out part (a fixed split, so the held-out metric is comparable between a bug run
and its fixed twin), and the held-out accuracy of a classifier."""
import torch

from benchmarks.real_bugs._common import classification

HELD_OUT = 360


def digits_split(images=False):
    """(x_train, y_train, x_test, y_test): the digits with the last 360 rows held out."""
    x, y = classification(images=images)
    return x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]


def accuracy(model, x, y):
    """Held-out accuracy of ``model`` (run in eval mode, then put back in train mode)."""
    was_training = model.training
    model.eval()
    with torch.no_grad():
        correct = (model(x).argmax(1) == y).float().mean().item()
    model.train(was_training)
    return correct
