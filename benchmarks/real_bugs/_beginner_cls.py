"""Pieces the beginner image-classifier reports (batch 229) share (kept small: each case
shows its bug): the 8x8 digits split into a training and a held-out part, a first small
CNN and MLP, and held-out accuracy."""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification


def split_digits(images=False, held_out=400):
    """The digits in [0, 1], shuffled by torch's generator: (x_train, y_train, x_test,
    y_test), the last ``held_out`` rows held out."""
    x, y = classification(images=images)
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    return x[:-held_out], y[:-held_out], x[-held_out:], y[-held_out:]


def first_mlp(inputs=64, hidden=64, outputs=10, dropout=0.0):
    layers = [nn.Flatten(), nn.Linear(inputs, hidden), nn.ReLU()]
    if dropout:
        layers.append(nn.Dropout(dropout))
    layers += [nn.Linear(hidden, hidden), nn.ReLU()]
    if dropout:
        layers.append(nn.Dropout(dropout))
    return nn.Sequential(*layers, nn.Linear(hidden, outputs))


def first_cnn(channels=1, outputs=10):
    return nn.Sequential(nn.Conv2d(channels, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 2 * 2, 64), nn.ReLU(),
                         nn.Linear(64, outputs))


def accuracy(model, x, y):
    """Held-out accuracy of ``model`` in eval mode (its mode restored afterwards)."""
    was_training = model.training
    model.eval()
    with torch.no_grad():
        correct = (model(x).argmax(1) == y).float().mean().item()
    model.train(was_training)
    return correct
