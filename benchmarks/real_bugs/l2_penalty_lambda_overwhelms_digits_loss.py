"""An L2 penalty added by hand to a from-scratch digits classifier with a weight (lambda)
of order one, tried at 0.5, 0.8, 1.0, 2.0: the penalty's pull on every weight outweighs the
cross-entropy's, the weights collapse towards zero and the classifier answers at chance.

Reported: "Can't seem to implement L2 regularization correctly in Python - low accuracy
scores" - https://devhide.com/can-t-seem-to-implement-l2-regularization-correctly-in-python-low-accuracy-scores-46270720
(a hand-written MNIST network: 97% without the regulariser, about 11% with it, whatever
the learning rate (.001, .1, 1) and lambda (.5, .8, 1.0, 2.0)). Here an MLP
(64 -> 64 -> 10, sigmoid hidden units as in the post) on the 8x8 digits, SGD with lr 0.5,
batches of 64, and lambda * sum of squared weights added to the loss with lambda = 0.5.
Fix: lambda = 1e-4.

Measured (held-out accuracy on 500 digits, eval mode): seed 0: 0.078 for the bug against
0.942 for the fixed twin; seeds + 1000: 0.086 against 0.914.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._regularisation_beginner import accuracy, digits

TITLE = "Can't seem to implement L2 regularization correctly in Python - low accuracy scores"
LINK = ("https://devhide.com/can-t-seem-to-implement-l2-regularization-correctly-in-python-"
        "low-accuracy-scores-46270720")
EXPECTED = ("SGD_WEIGHT_DECAY_TOO_LARGE",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = digits()
    lambd = 1e-4 if fixed else 0.5                      # BUG when not fixed: lambda 0.5
    model = nn.Sequential(nn.Linear(64, 64), nn.Sigmoid(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            penalty = sum((m.weight ** 2).sum() for m in model if isinstance(m, nn.Linear))
            loss = loss_fn(model(xb), yb) + lambd * penalty
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
