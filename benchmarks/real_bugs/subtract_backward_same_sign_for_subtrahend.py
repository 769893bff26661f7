"""A hand-written subtraction whose backward gives the second operand the same gradient as
the first: ``d(a - b)/db`` is -1, the backward returns +grad for both. A regression loss
written ``(target - prediction) ** 2`` then sends the prediction the gradient of the error
with its sign flipped: every step climbs the loss instead of descending it.

Reported: "backward_subtract computes incorrect gradient for second value" -
https://github.com/KhawajaAbaid/micrograd_c/issues/1 ("For second value (child), the
gradient should be -self.grad"; fixed by the author's commit). Here the same subtraction
as a custom ``autograd.Function`` in the squared error of a regression MLP that predicts the
digit's (standardised) value from its 8x8 pixels. Fix: return ``grad_output,
-grad_output``.

Measured (200 steps, SGD 0.01 momentum 0.9): the bug's loss rises from 0.88 to inf and
then NaN (the predictions pushed away from the targets, faster every step); the fixed
twin's falls from 0.88 to 0.22 (mean of the last 10 steps).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, regression, train_watched

TITLE = "backward_subtract computes incorrect gradient for second value"
LINK = "https://github.com/KhawajaAbaid/micrograd_c/issues/1"
EXPECTED = ("BACKWARD_MISMATCH",)
STEPS = 200


class Subtract(torch.autograd.Function):
    """a - b, with a hand-written backward."""

    @staticmethod
    def forward(ctx, a, b, fixed):
        ctx.fixed = fixed
        return a - b

    @staticmethod
    def backward(ctx, grad_output):
        if ctx.fixed:
            return grad_output, -grad_output, None
        return grad_output, grad_output, None            # BUG: d(a - b)/db is -1


def squared_error(fixed):
    def loss(prediction, target):
        return Subtract.apply(target, prediction.squeeze(1), fixed).pow(2).mean()
    return loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = regression()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return train_watched(model, optimizer, squared_error(fixed), batches(x, y, steps),
                         **watch)
