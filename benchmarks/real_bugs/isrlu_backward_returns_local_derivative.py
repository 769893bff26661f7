"""A hand-written ISRLU activation whose backward returns the activation's own derivative,
``ctx.nisr ** 3``, without ``grad_out``: the layers before it receive a "gradient" that
depends on their activations only, not on the loss, and drift instead of learning.

Reported: "gradcheck fails with cryptic error" -
https://github.com/pytorch/pytorch/issues/4355 (an ISRLU ``Function`` whose
``backward(ctx, grad_out)`` is ``return ctx.nisr ** 3, None``: "I tried implementing the
ISRLU activation but the `gradcheck` fails"). Only gradcheck noticed; a model built on it
trains without an error. Here ISRLU is the hidden activation of the digits MLP. Fix: return
``grad_out * ctx.nisr ** 3``.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "gradcheck fails with cryptic error"
LINK = "https://github.com/pytorch/pytorch/issues/4355"
EXPECTED = ("GRADIENT_IGNORES_LOSS",)
STEPS = 200
ALPHA = 1.0


class ISRLUFunction(torch.autograd.Function):
    """x for x >= 0, x / sqrt(1 + alpha x^2) below; derivative (1 + alpha x^2)^-3/2."""

    @staticmethod
    def forward(ctx, tensor, fixed):
        negatives = torch.clamp(tensor, max=0)
        ctx.nisr = torch.rsqrt(1. + ALPHA * negatives ** 2)
        ctx.fixed = fixed
        return tensor * ctx.nisr

    @staticmethod
    def backward(ctx, grad_out):
        if ctx.fixed:
            return grad_out * ctx.nisr ** 3, None
        return ctx.nisr ** 3, None                        # BUG: grad_out left out


class ISRLU(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed

    def forward(self, x):
        return ISRLUFunction.apply(x, self.fixed)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 64), ISRLU(fixed), nn.Linear(64, 64), ISRLU(fixed),
                          nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
