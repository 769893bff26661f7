"""The observations are encoded inside ``torch.no_grad()``: the head on top trains, the
convolutional encoder under it never receives a gradient and keeps its random weights.

Reported: "No gradient through the cnn encoder" - https://github.com/rll-research/cic/issues/5
("the observations are encoded inside torch.no_grad which means that there is no gradient
calculation for the CNN, which means that the CNN weights will not be updated during
pre-training"). Here a small conv encoder on the digits, run under no_grad in forward, and
a linear head on its features; every parameter is handed to the optimizer. Fix: run the
encoder with gradients (no_grad only where the encoder is meant to stay fixed).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "No gradient through the cnn encoder"
LINK = "https://github.com/rll-research/cic/issues/5"
EXPECTED = ("NO_GRADIENT",)
STEPS = 150


class Agent(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.encoder = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                     nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.Flatten())
        self.head = nn.Linear(256, 10)

    def forward(self, x):
        if self.fixed:
            features = self.encoder(x)
        else:
            with torch.no_grad():                        # BUG: the encoder gets no gradient
                features = self.encoder(x)
        return self.head(features)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = Agent(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
