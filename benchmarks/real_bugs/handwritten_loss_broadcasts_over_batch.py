"""A hand-written squared error between a regression output of shape ``(N, 1)`` and a target
of shape ``(N,)``: broadcasting turns ``output - target`` into an ``(N, N)`` table of every
output minus every target, and its mean is the loss. Each output is pulled towards the
mean of the batch's targets; the model learns nothing about its own sample. No warning
comes: MSELoss warns about the shapes, plain tensor arithmetic does not.

Reported: "broadcasting inconsistency?" - https://github.com/pytorch/pytorch/issues/2973
("(c) when x.size()=(10,1) and y.size()=(10), (x*y).size()=(10,10) (unexpected) ... the
cases (c) and (d) really easily throw off many ... from debugging, when such cases happen
in a loss function that reduces the output into a single scalar"; the answer: "these are
expected behavior and consistent with NumPy broadcasting"). Here a regression of the
digit's value from its 8x8 pixels with ``((output - target) ** 2).mean()``. Fix: make the
shapes match, ``output.squeeze(1)``.

How watch finds it: on the first recorded steps the monitor walks the loss's graph: a
subtraction makes a (64, 64) table from the model's (64, 1) output and a tensor outside
the graph (the targets), and the table is only squared and averaged:
LOSS_BROADCAST_OVER_BATCH (monitor/outer_differences.py). The fixed twin's subtraction is
(64,). (As it came, before that observer, watch said nothing at all.)
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, regression

TITLE = "broadcasting inconsistency?"
LINK = "https://github.com/pytorch/pytorch/issues/2973"
EXPECTED = ("LOSS_BROADCAST_OVER_BATCH",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = regression()                                  # y: (N,)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            output = model(xb)                           # (N, 1)
            if fixed:
                output = output.squeeze(1)
            loss = ((output - yb) ** 2).mean()           # BUG: (N, 1) - (N,) is (N, N)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
