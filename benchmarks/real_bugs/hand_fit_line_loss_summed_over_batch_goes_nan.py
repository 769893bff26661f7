"""A straight line fitted by hand-written gradient descent (``w.data.sub_(lr * w.grad)``)
with the squared error SUMMED over the batch, ``0.5 * ((y_pred - y) ** 2).sum()``, at a
learning rate chosen for an averaged loss. The summed loss's gradient is 30 times the
mean's (one term per point) and the inputs run up to 20, so every update overshoots the
slope further than the last: the weights swing with growing amplitude until they are inf,
then nan.

Reported: "pytorch autograd线性回归" (autograd linear regression) -
https://github.com/chenyuntc/pytorch-book/issues/138 (the book's hand-written linear fit,
``loss = 0.5 * (y_pred - y) ** 2; loss = loss.sum()`` with updates of 0.001 * grad, ends
with ``tensor([[nan]], requires_grad=True)``; the reporter: with the loss taken as
``t.mean((y_pred - y) ** 2)`` it converges). Here the book's data - each step 30 fresh
points x in [0, 20), y = 2x + 3(1 + u), u uniform - a w and b of shape (1, 1) started
uniform in [0, 1), updates through ``.data`` and the gradients zeroed after each update,
as in the report. Fix: the mean squared error, nothing else changed.

Measured (held-out mean squared error on 500 fresh points after 300 steps): nan with the
bug, 3.34 fixed; seeds + 1000: nan vs 4.10.
"""
import torch
from torch import nn

import nndebug as nd

TITLE = "pytorch autograd线性回归"
LINK = "https://github.com/chenyuntc/pytorch-book/issues/138"
EXPECTED = ("NAN_LOSS", "LOSS_DIVERGING", "LR_TOO_HIGH")
STEPS = 300
LR = 0.001


class Line(nn.Module):
    """y = x w + b with the book's (1, 1) parameters (a module so that watch can follow them)."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.rand(1, 1))
        self.b = nn.Parameter(torch.rand(1, 1))

    def forward(self, x):
        return x.mm(self.w) + self.b


def points(size=30):
    x = torch.rand(size, 1) * 20
    return x, 2 * x + (1 + torch.rand(size, 1)) * 3


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(1000)
    model = Line()
    with nd.watch(model, **watch) as mon:     # no optimizer: the loop updates the weights
        for _ in range(steps):
            x, y = points()
            y_pred = model(x)
            if fixed:
                loss = ((y_pred - y) ** 2).mean()
            else:                              # BUG: summed over the 30 points
                loss = (0.5 * (y_pred - y) ** 2).sum()
            loss.backward()
            model.w.data.sub_(LR * model.w.grad.data)
            model.b.data.sub_(LR * model.b.grad.data)
            model.w.grad.data.zero_()
            model.b.grad.data.zero_()
            mon.step(loss)
    x, y = points(500)
    with torch.no_grad():
        mon.held_out_mse = float(((model(x) - y) ** 2).mean())
    return mon
