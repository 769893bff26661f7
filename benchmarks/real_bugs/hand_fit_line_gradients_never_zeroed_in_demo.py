"""A first linear-regression demo written with autograd and hand updates, ``w.data = w.data
- lr * w.grad.data``, and no line that clears the gradients: each ``backward()`` adds the
new gradient onto all the old ones, so an update is the running sum of every gradient so
far. That acts like momentum with no decay: the line overshoots, swings back and forth
around the fit, and whatever point the last step happens to land on is the model.

Reported: "this linear_regression demo cannot work well in pytorch 1.0.1" -
https://github.com/greebear/pytorch-learning/issues/1 (the reporter: "The loss is not
always decreasing, even lr is very small 1e-6", because the demo must zero ``w.grad`` and
``b.grad`` itself; the author fixed it). Here a noisy line y = 3x + 4 + noise on 100
points x in [0, 5), parameters w and b (a module so that watch can follow them), the
mean squared error on the whole set each step, lr 0.01. Fix: ``w.grad.data.zero_()`` and
``b.grad.data.zero_()`` after the update.

Measured (held-out mean squared error on 500 fresh points after 300 steps): 33.1 with the
bug, 1.00 fixed; seeds + 1000: 99.0 vs 1.25.
"""
import torch
from torch import nn

import nndebug as nd

TITLE = "this linear_regression demo cannot work well in pytorch 1.0.1"
LINK = "https://github.com/greebear/pytorch-learning/issues/1"
EXPECTED = ("GRADIENTS_ACCUMULATING",)
STEPS = 300
LR = 0.01


class Line(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(1))
        self.b = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        return self.w * x + self.b


def noisy_line(n):
    x = torch.rand(n) * 5
    return x, 3 * x + 4 + torch.randn(n)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = noisy_line(100)
    x_held, y_held = noisy_line(500)
    model = Line()
    with nd.watch(model, **watch) as mon:     # no optimizer: the loop updates the weights
        for _ in range(steps):
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            model.w.data = model.w.data - LR * model.w.grad.data
            model.b.data = model.b.data - LR * model.b.grad.data
            if fixed:                          # BUG (fixed=False): these lines were missing
                model.w.grad.data.zero_()
                model.b.grad.data.zero_()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_mse = float(((model(x_held) - y_held) ** 2).mean())
    return mon
