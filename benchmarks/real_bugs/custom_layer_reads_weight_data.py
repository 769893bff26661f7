"""A custom layer whose forward reads ``self.weight.data`` and ``self.bias.data``: ``.data``
is the parameter's values outside autograd, so the layer's output is computed from
constants. Its parameters are registered, handed to the optimizer and never receive a
gradient: the layer stays at its random initialisation while the layers after it learn
on top of random features.

Reported: "Fix pytorch version of custom-layer to allow auto grad" -
https://github.com/d2l-ai/d2l-en/pull/2600 ("'self.weight' and 'self.bias' should be used
instead of 'self.weight.data' and 'self.bias.data' to make sure that BP works for weight
and bias"), on the book's ``MyLinear`` (``torch.matmul(X, self.weight.data) +
self.bias.data``). Here that layer is the hidden layer of the digits classifier, initialised
with ``torch.randn`` as in the book. Fix: use the parameters themselves.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Fix pytorch version of custom-layer to allow auto grad"
LINK = "https://github.com/d2l-ai/d2l-en/pull/2600"
EXPECTED = ("NO_GRADIENT",)
STEPS = 200


class MyLinear(nn.Module):
    def __init__(self, in_units, units, fixed):
        super().__init__()
        self.fixed = fixed
        self.weight = nn.Parameter(torch.randn(in_units, units))
        self.bias = nn.Parameter(torch.randn(units))

    def forward(self, X):
        if self.fixed:
            linear = torch.matmul(X, self.weight) + self.bias
        else:
            linear = torch.matmul(X, self.weight.data) + self.bias.data   # BUG: .data
        return F.relu(linear)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(MyLinear(64, 32, fixed), nn.Linear(32, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
