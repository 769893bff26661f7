"""Images kept at their 0-255 intensities but normalised with the mean and std that were
computed on images scaled to [0, 1] (0.1307 and 0.3081 for MNIST): the inputs are not
standardised at all but shifted a little and multiplied by about 3, reaching into the
hundreds, and the first layers' activations and gradients are that much too large.

Reported: "MNIST normalizing and scaling the dataset at the same time" -
https://discuss.pytorch.org/t/mnist-normalizing-and-scaling-the-dataset-at-the-same-time/95218
("They all subtract a mean of 0.1307 and divide by a standard deviation of 0.3081. These
values are basically the mean and the standard deviation of the dataset divided by 255 ...
The resulting data will not be between [0, 1] and will not have mean 0 or std 1. In fact
this is what we are doing: [data - (mean / 255)] / (std / 255)"). Here a small conv net on
the 8x8 digits brought to 0-255 and normalised with their [0, 1] statistics. Fix: scale to
[0, 1] first (ToTensor does), then normalise.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "MNIST normalizing and scaling the dataset at the same time"
LINK = ("https://discuss.pytorch.org/t/"
        "mnist-normalizing-and-scaling-the-dataset-at-the-same-time/95218")
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 150


def convnet():
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(64, 10))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    unit, y = classification(images=True)         # pixels in [0, 1]
    mean, std = unit.mean(), unit.std()           # the statistics of the [0, 1] images
    pixels = unit * 255                           # what the dataset stores
    scaled = pixels / 255 if fixed else pixels    # BUG when not fixed: never scaled
    x = (scaled - mean) / std
    model = convnet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.functional.cross_entropy,
                         batches(x, y, steps), **watch)
