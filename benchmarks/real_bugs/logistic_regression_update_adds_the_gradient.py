"""Logistic regression written from scratch, one point at a time, with the update copied
from the lesson's rule for the error term rather than for the gradient: ``d_error =
-(y - y_hat)`` IS the gradient of the log-loss in the output, and the script ADDS
``lr * d_error * x`` to the weights. Every step climbs the loss instead of descending it:
the boundary is pushed away from each point's correct side, the weights grow without
bound and the predictions end up confidently wrong.

Reported: "Fix error in train() weight updating" -
https://github.com/udacity/deep-learning-v2-pytorch/pull/14 (the gradient-descent
notebook's train: "there is an error in updating weight using sum instead of a
subtract"; the maintainer, after a second look, agreed the notebook's instructions for
the error term were misleading and updated the code). Here the notebook's setting: two
classes of 2-D points (two Gaussian blobs), a sigmoid of w.x + b, weights updated by hand
after every single point (no autograd), lr 0.01, the log-loss of each point reported.
Fix: ``weights -= lr * d_error * x`` (and the same for the bias).

Measured (held-out accuracy on 400 fresh points after 400 single-point steps): 0.030 with
the bug, 0.970 fixed; seeds + 1000: 0.025 vs 0.980.
"""
import torch
from torch import nn

import nndebug as nd

TITLE = "Fix error in train() weight updating"
LINK = "https://github.com/udacity/deep-learning-v2-pytorch/pull/14"
EXPECTED = ("LOSS_SIGN_FLIPPED", "NEGATIVE_LEARNING_RATE")
STEPS = 400
LR = 0.01


class Logistic(nn.Module):
    """sigmoid(x . w + b), its parameters updated by hand (the notebook uses no autograd)."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(2) * 0.1, requires_grad=False)
        self.bias = nn.Parameter(torch.zeros(()), requires_grad=False)

    def forward(self, x):
        return torch.sigmoid(x @ self.weight + self.bias)


def two_blobs(per_class):
    y = torch.arange(2).repeat_interleave(per_class).float()
    centres = torch.tensor([[-1.0, -0.5], [1.0, 0.8]])
    return centres[y.long()] + torch.randn(len(y), 2) * 0.6, y


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(44)
    x, y = two_blobs(50)
    x_held, y_held = two_blobs(200)
    model = Logistic()
    order = torch.randperm(len(y))
    with nd.watch(model, **watch) as mon:     # no optimizer: the loop updates the weights
        for step in range(steps):
            if step and step % len(y) == 0:
                order = torch.randperm(len(y))
            i = order[step % len(y)]
            y_hat = model(x[i])
            loss = -(y[i] * torch.log(y_hat) + (1 - y[i]) * torch.log(1 - y_hat))
            d_error = -(y[i] - y_hat)          # the log-loss's gradient in w.x + b
            if fixed:
                model.weight -= LR * d_error * x[i]
                model.bias -= LR * d_error
            else:                              # BUG: adds the gradient
                model.weight += LR * d_error * x[i]
                model.bias += LR * d_error
            mon.step(loss)
    mon.held_out_accuracy = float(((model(x_held) > 0.5).float() == y_held).float().mean())
    return mon
