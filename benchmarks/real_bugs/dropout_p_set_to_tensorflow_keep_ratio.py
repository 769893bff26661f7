"""Dropout written with TensorFlow's keep_prob in mind: nn.Dropout(0.9) meant to keep 90%
of the units, but PyTorch's p is the share DROPPED, so the network trains with 90% of its
hidden units zeroed (and the rest multiplied by 10) on every step.

Reported: "dropout 的参数 p 是什么意思" ("what dropout's p means", from the post's
opening) - https://blog.aayu.today/artificial-intelligence/pytorch/20200607-1 (the author
always took PyTorch's p to be TensorFlow's keep_prob, the share of units kept, and found by
experiment it is the reverse: the share not kept). Here an MLP (64 -> 128 -> 128 -> 10) on
the 8x8 digits with nn.Dropout(0.9) after both hidden layers, Adam, batches of 64. Fix:
nn.Dropout(0.1), the intended keep ratio of 0.9.

Measured (held-out accuracy on 500 digits, eval mode, after the run): seed 0: 0.786 for
the bug against 0.976 for the fixed twin; seeds + 1000: 0.792 against 0.964.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._regularisation_beginner import accuracy, digits

TITLE = "dropout 的参数 p 是什么意思"
LINK = "https://blog.aayu.today/artificial-intelligence/pytorch/20200607-1"
EXPECTED = ("DROPOUT_RATE_TOO_HIGH",)
STEPS = 300
KEEP_PROB = 0.9


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = digits()
    p = 1 - KEEP_PROB if fixed else KEEP_PROB       # BUG when not fixed: keep_prob as p
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Dropout(p),
                          nn.Linear(128, 128), nn.ReLU(), nn.Dropout(p),
                          nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
