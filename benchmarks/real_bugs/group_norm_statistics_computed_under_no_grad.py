"""A hand-written group normalisation that computes each group's mean and variance inside
``with torch.no_grad():``. The forward pass is right, but the backward pass treats the
statistics as constants: the gradient misses the terms through the mean and the variance
(the part that makes a normalised layer's gradient orthogonal to shifts and rescalings of
its input), so the convolutions are updated along directions the normalisation then undoes,
and the network learns worse than with the true gradient.

Reported: "with torch.no_grad():" - https://github.com/anthonymlortiz/lcn/issues/2 ("why
use with torch.no_grad()? With this implementation, no back propagation occurs in the mean
and variance. The batch normalization backpropagation backpropagate the mean and variance
gradients. Is this implementation correct?" - about the repository's local context
normalisation, a group normalisation over local windows). Here a small conv net on the 8x8
digits with a group norm (4 groups) after each convolution whose statistics are computed
that way, Adam. Fix: compute the statistics with gradients.

Measured (200 steps, 397 held-out digits): held-out accuracy 0.874 against 0.937 fixed;
seeds + 1000: 0.894 against 0.955.
"""
import contextlib

import torch
from torch import nn

from benchmarks.real_bugs._norms import digits, held_out_accuracy, train

TITLE = "with torch.no_grad():"
LINK = "https://github.com/anthonymlortiz/lcn/issues/2"
EXPECTED = ("BACKWARD_MISMATCH",)
STEPS = 200
GROUPS = 4


class GroupNorm(nn.Module):
    def __init__(self, channels, groups, fixed, eps=1e-5):
        super().__init__()
        self.groups, self.fixed, self.eps = groups, fixed, eps
        self.weight = nn.Parameter(torch.ones(1, channels, 1, 1))
        self.bias = nn.Parameter(torch.zeros(1, channels, 1, 1))

    def forward(self, x):
        n, c, h, w = x.shape
        grouped = x.view(n, self.groups, -1)
        # BUG when not fixed: the statistics carry no gradient
        with contextlib.nullcontext() if self.fixed else torch.no_grad():
            mean = grouped.mean(-1, keepdim=True)
            var = grouped.var(-1, keepdim=True, unbiased=False)
        normalised = ((grouped - mean) / torch.sqrt(var + self.eps)).view(n, c, h, w)
        return normalised * self.weight + self.bias


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train_rows, held_out = digits(images=True)
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), GroupNorm(16, GROUPS, fixed), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), GroupNorm(32, GROUPS, fixed), nn.ReLU(),
        nn.Flatten(), nn.Linear(32 * 4 * 4, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train(model, optimizer, train_rows, steps, **watch)
    mon.test_accuracy = held_out_accuracy(model, held_out)
    return mon
