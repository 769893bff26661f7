"""Images fed at the scale of their raw intensities, hundreds to a thousand, into a small
network with PyTorch's default initialisation: the first activations are huge, the first
step's gradient is huge, and the loss overflows to inf and NaN after a step or two.

Reported: "pixel normalization and NN weight inits" -
https://github.com/mlmed/torchxrayvision/issues/9 ("I tried training another (shallower)
architecture on these data with default weight inits and I start getting infs and nans
after the first training iteration. When I normalized the pixels to have mean=0, std=1
then it worked fine"; the dataset maps 8-bit pixels to [-1024, 1024]). Here a small conv
net on the 8x8 digits mapped the same way. Fix: standardise the inputs (mean 0, std 1).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "pixel normalization and NN weight inits"
LINK = "https://github.com/mlmed/torchxrayvision/issues/9"
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 150


def small_cnn():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.Flatten(),
                         nn.Linear(32 * 4 * 4, 10))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    x = x * 2048 - 1024                       # the dataset's range, [-1024, 1024]
    if fixed:
        x = (x - x.mean()) / x.std()          # the fix: mean 0, std 1
    model = small_cnn()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
