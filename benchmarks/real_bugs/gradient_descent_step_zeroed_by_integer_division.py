"""Batch gradient descent on a linear regression with the gradient of the MSE written by
hand, ``gradients = 2/m * X_b.T @ (X_b @ theta - y)``, run under Python 2: ``2/m`` with the
integer sample count m = 100 is integer division, 0, so every gradient is exactly zero and
theta never leaves its random start. The loop runs its iterations, nothing raises, and the
fitted line is the random one it began with.

Reported: "gradient equals 0 in python 2" - https://github.com/ageron/handson-ml/issues/16
("in python2, '/' doesn't return float but integer number when both divisor and dividend
are integer, m=100 here, 2/100 = 0, so gradients are always 0"; the author: add
``from __future__ import division``). Here the book's data (y = 4 + 3x + noise, x in [0, 2),
m = 100 points), theta the bias and weight of an nn.Linear(1, 1) drawn at random, the
hand-written gradient (Python 3 spelling of the same arithmetic: ``2 // m``) put in
``.grad`` and applied by SGD at the book's eta = 0.1, 300 iterations; the MSE each
iteration is what the loop reports. 100 more points of the same line are held out.

Fix: ``2.0 / m`` (or true division).

Measured (held-out MSE, the noise alone gives about 1.0): 72.1 with the bug, 0.99 fixed;
seeds + 1000: 62.7 vs 0.99 (the data's own generator is not reseeded, only the init).
"""
import torch
from torch import nn

import nndebug as nd

TITLE = "gradient equals 0 in python 2"
LINK = "https://github.com/ageron/handson-ml/issues/16"
EXPECTED = ("NO_GRADIENT",)
STEPS = 300
ETA = 0.1


def line(n, generator):
    x = 2 * torch.rand(n, 1, generator=generator)
    return x, 4 + 3 * x + torch.randn(n, 1, generator=generator)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = torch.Generator().manual_seed(42)
    x, y = line(100, data)
    held_x, held_y = line(100, data)
    m = len(x)                                            # an int: 100
    x_b = torch.cat([torch.ones(m, 1), x], dim=1)         # a column of ones for the bias
    model = nn.Linear(1, 1)
    nn.init.normal_(model.weight)                         # theta = np.random.randn(2, 1)
    nn.init.normal_(model.bias)
    optimizer = torch.optim.SGD(model.parameters(), lr=ETA)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            with torch.no_grad():
                theta = torch.cat([model.bias.view(1, 1), model.weight.view(1, 1)])
                residual = x_b @ theta - y
                scale = 2.0 / m if fixed else 2 // m       # BUG: Python 2's 2/m on ints
                gradients = scale * x_b.T @ residual
                model.bias.grad = gradients[0].clone()
                model.weight.grad = gradients[1].view(1, 1).clone()
            optimizer.step()
            mon.step((residual ** 2).mean())
    with torch.no_grad():
        mon.held_out_mse = round(float(((model(held_x) - held_y) ** 2).mean()), 3)
    return mon
