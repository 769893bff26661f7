"""A batch norm written by hand divides by the batch's standard deviation with no epsilon:
``(x - mean) / std``. Placed on the raw pixels of the digits, it meets columns that are 0 in
every image of the batch (the border pixels): their standard deviation is 0, 0 / 0 is NaN,
and the loss is NaN from the first step.

Reported: "Variational Autoencoder, Batchnorm updates" -
https://github.com/Brimborough/deep-motion-analysis/pull/1 (merged; the author: "I also added
some epsilon value to stop division by zero when the standard deviation is zero. It looks
like jonathan also noticed this."). Here an MLP on the 8x8 digits normalises its input and
its hidden layer with such a layer. Fix: divide by ``sqrt(var + eps)`` (``nn.BatchNorm1d``
uses eps = 1e-5).

Measured (150 steps, 297 held-out digits, batch statistics): the bug's loss is NaN from step
0, held-out accuracy 0.09; the fixed twin's accuracy 0.92.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Variational Autoencoder, Batchnorm updates"
LINK = "https://github.com/Brimborough/deep-motion-analysis/pull/1"
EXPECTED = ("NAN_BORN_IN_FORWARD",)
STEPS = 150
HELD_OUT = 297
EPS = 1e-5


class BatchNorm(nn.Module):
    """Batch normalisation over the batch axis, written out (batch statistics only)."""

    def __init__(self, features, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(features))
        self.bias = nn.Parameter(torch.zeros(features))

    def forward(self, x):
        mean = x.mean(0, keepdim=True)
        var = x.var(0, unbiased=False, keepdim=True)
        if self.eps:
            normalised = (x - mean) / torch.sqrt(var + self.eps)
        else:
            normalised = (x - mean) / torch.sqrt(var)           # BUG: no epsilon
        return normalised * self.weight + self.bias


def build(fixed):
    eps = EPS if fixed else 0.0
    return nn.Sequential(BatchNorm(64, eps), nn.Linear(64, 128), BatchNorm(128, eps), nn.ReLU(),
                         nn.Linear(128, 10))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = build(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
