"""Shared pieces of real-bug batch 265 (image preprocessing and normalisation in first
training scripts): the 8x8 digits as the raw 8-bit pixel values a beginner reads from an
image file (0..255, float32), split into training and held-out rows, a first MLP and CNN,
and the held-out accuracy the docstrings quote."""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification


def raw_digits(images=False, held_out=400):
    """The digits as 8-bit pixel values (0..255, float32; (N, 64) or (N, 1, 8, 8)), shuffled
    with torch's generator: (x_train, y_train, x_test, y_test), the last ``held_out`` rows
    held out."""
    x, y = classification(images=images)
    x = (x * 255).round()
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    return x[:-held_out], y[:-held_out], x[-held_out:], y[-held_out:]


def first_mlp(hidden=128):
    """Keras' first tutorial model: Flatten, Dense(hidden, relu), Dense(10)."""
    return nn.Sequential(nn.Flatten(), nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, 10))


def first_cnn(channels=1, batchnorm=False):
    """conv-ReLU-pool twice (8x8 -> 2x2 maps), optionally with batch norm after each conv,
    then a small dense head."""
    def block(cin, cout):
        layers = [nn.Conv2d(cin, cout, 3, padding=1)]
        if batchnorm:
            layers.append(nn.BatchNorm2d(cout))
        return layers + [nn.ReLU(), nn.MaxPool2d(2)]
    return nn.Sequential(*block(channels, 16), *block(16, 32), nn.Flatten(),
                         nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))


def accuracy(model, x, y):
    """Held-out accuracy of ``model`` in eval mode under no_grad (its mode restored)."""
    was_training = model.training
    model.eval()
    with torch.no_grad():
        correct = float((model(x).argmax(1) == y).float().mean())
    model.train(was_training)
    return round(correct, 3)
