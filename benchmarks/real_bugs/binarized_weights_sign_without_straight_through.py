"""Binarized layers compute ``sign(w)`` in the forward pass with no custom backward: the
derivative of sign is zero wherever it is defined, so the real-valued weights behind the
binary ones receive a zero gradient and never move; the binarized layers stay the random
feature extractors they started as, and only the full-precision layers after them learn.

Reported: "No weight update due to sign function" -
https://github.com/layog/Accurate-Binary-Convolution-Network/issues/6 ("weights get updated
because of the tf.sign function cutting off backprop gradients"; a gradient override to
Identity is needed; the author: the parameters behind the sign "are currently not trainable
due to tf.sign function"; a third user: "The first two ABC layers behave only as constant
feature extractors"). Here two binarized linear layers of 16 units (sign of the weight times a
learned per-layer scale, batch norm after each) and a full-precision classifier on the 8x8
digits.
Fix: binarize with a custom ``autograd.Function`` whose backward passes the gradient
through where |w| <= 1 (the straight-through estimator of BinaryConnect).

Measured (300 steps, Adam 3e-3): the bug's binarized weights never change (their gradient is
exactly zero), loss 2.36 at the first step, 0.98 over the last 10; the fixed twin's 0.26.
(At 128 units and Adam 1e-2 the random binary features were enough for the digits: the bug
ended at 0.03, the twin at 0.06, so the width was lowered to where the report's harm shows.)
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "No weight update due to sign function"
LINK = "https://github.com/layog/Accurate-Binary-Convolution-Network/issues/6"
EXPECTED = ("PARAMS_NOT_UPDATING", "NO_GRADIENT")
STEPS = 300
WIDTH = 16


class SignStraightThrough(torch.autograd.Function):
    """sign() forward; the gradient passed through where |w| <= 1, cancelled beyond."""

    @staticmethod
    def forward(ctx, w):
        ctx.save_for_backward(w)
        return torch.where(w >= 0, 1.0, -1.0)

    @staticmethod
    def backward(ctx, grad_output):
        (w,) = ctx.saved_tensors
        return grad_output * (w.abs() <= 1)


class BinaryLinear(nn.Linear):
    def __init__(self, inputs, outputs, fixed):
        super().__init__(inputs, outputs, bias=False)
        self.fixed = fixed
        self.scale = nn.Parameter(torch.tensor(1.0))

    def forward(self, x):
        if self.fixed:
            binary = SignStraightThrough.apply(self.weight)
        else:
            binary = torch.sign(self.weight)              # BUG: zero gradient to weight
        return nn.functional.linear(x, binary * self.scale / self.in_features ** 0.5)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(BinaryLinear(64, WIDTH, fixed), nn.BatchNorm1d(WIDTH), nn.ReLU(),
                          BinaryLinear(WIDTH, WIDTH, fixed), nn.BatchNorm1d(WIDTH), nn.ReLU(),
                          nn.Linear(WIDTH, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
