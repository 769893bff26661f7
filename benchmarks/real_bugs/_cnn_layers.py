"""Pieces the hand-written CNN-layer reports of real-bug batch 270 share (kept small: each
case writes its own layers, so its bug stays in the case file): the 8x8 digits as images
split into training and held-out rows, shuffled mini-batches of the training rows, and the
held-out accuracy of a model."""
import torch

from benchmarks.real_bugs._common import batches, classification

HELD_OUT = 597          # of the 1,797 digits; the other 1,200 train


def digit_images():
    """(x_train (1200, 1, 8, 8), y_train, x_test (597, 1, 8, 8), y_test): the digits split
    by a permutation drawn from torch's global generator (seed it first)."""
    x, y = classification(images=True)
    order = torch.randperm(len(x))
    test, train = order[:HELD_OUT], order[HELD_OUT:]
    return x[train], y[train], x[test], y[test]


def train_batches(x, y, steps, batch_size=32):
    """``steps`` shuffled mini-batches of (x, y), reshuffled every epoch."""
    return batches(x, y, steps, batch_size=batch_size)


@torch.no_grad()
def accuracy(model, x, y):
    """Held-out accuracy in eval mode (the model is put back in training mode after)."""
    was_training = model.training
    model.eval()
    correct = (model(x).argmax(dim=1) == y).float().mean().item()
    model.train(was_training)
    return round(correct, 4)
