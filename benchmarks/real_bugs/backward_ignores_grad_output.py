"""A custom autograd.Function whose backward returns its local derivative without
multiplying it by grad_output: every layer before it receives a "gradient" that does not
depend on the loss (its sign and size come from the activation alone), so those layers
drift in a fixed direction instead of learning.

Reported: "backward of -torch.prod(x) missing negative sign" -
https://github.com/pytorch/pytorch/issues/995 ("gives 3,2 instead of -3,-2"; the maintainer:
the backward "does not multiply by grad_output"). Here the same omission in a hand-written
activation (a softplus with its own backward) inside the digits MLP. Fix: return
grad_output * derivative.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "backward of -torch.prod(x) missing negative sign"
LINK = "https://github.com/pytorch/pytorch/issues/995"
EXPECTED = ("GRADIENT_IGNORES_LOSS",)
STEPS = 150


class SoftplusFunction(torch.autograd.Function):
    """softplus(x) = log(1 + e^x), derivative sigmoid(x); ``fixed`` picks the backward."""

    @staticmethod
    def forward(ctx, x, fixed):
        ctx.save_for_backward(x)
        ctx.fixed = fixed
        return nn.functional.softplus(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        derivative = torch.sigmoid(x)
        if ctx.fixed:
            return grad_output * derivative, None
        return derivative, None                   # BUG: grad_output left out


class Softplus(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed

    def forward(self, x):
        return SoftplusFunction.apply(x, self.fixed)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 64), Softplus(fixed), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
