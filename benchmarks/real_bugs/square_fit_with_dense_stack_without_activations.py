"""A regression of n^2 on n by a stack of six Dense layers none of which has an activation
(Keras' default is linear): the whole stack is one affine map, so it fits the best straight
line through the parabola and stops there - the sum-of-two-numbers version of the same
script worked, which hid the cause.

Reported: "why multiplication (squares) doesn't work for neural networks?" -
https://datascience.stackexchange.com/questions/60170/why-multiplication-squares-doesnt-work-for-neural-networks
(Dense(20) - Dense(100) - Dense(1000) - Dense(100) - Dense(20) - Dense(1), all without an
activation, Adam, batches of 100, inputs scaled by the largest value: RMSE 0 on sums of two
numbers, but the same network does not learn squares). Here the same layer widths in
PyTorch on 1000 integers n in 1..1000 (800 to train), x = n / 1000 and y = x^2, Adam 1e-3,
batches of 100. Fix: a ReLU after every hidden Linear.

Measured harm (held-out RMSE of n^2, in the raw units of up to 1e6): seed 0: 71169 vs 1095
(R^2 0.939 vs 1.000); seeds + 1000: 77886 vs 1628.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd

TITLE = "why multiplication (squares) doesn't work for neural networks?"
LINK = ("https://datascience.stackexchange.com/questions/60170/"
        "why-multiplication-squares-doesnt-work-for-neural-networks")
EXPECTED = ("LINEAR_LAYERS_STACKED",)
STEPS = 400
BATCH = 100
WIDTHS = (1, 20, 100, 1000, 100, 20)


def run(fixed=False, steps=STEPS, **watch):
    np.random.seed(0)
    torch.manual_seed(0)
    n = np.random.randint(1, 1001, size=(1000, 1)).astype(np.float32)
    x, y = torch.from_numpy(n / 1000.0), torch.from_numpy((n / 1000.0) ** 2)
    layers = []
    for width_in, width_out in zip(WIDTHS, WIDTHS[1:]):
        layers.append(nn.Linear(width_in, width_out))
        if fixed:
            layers.append(nn.ReLU())        # BUG when not fixed: no activation anywhere
    layers.append(nn.Linear(WIDTHS[-1], 1))
    model = nn.Sequential(*layers)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, 800, (BATCH,))
            loss = ((model(x[rows]) - y[rows]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        error = (model(x[800:]) - y[800:]) * 1e6
        mon.held_out_rmse = round(float((error ** 2).mean().sqrt()), 0)
    return mon
