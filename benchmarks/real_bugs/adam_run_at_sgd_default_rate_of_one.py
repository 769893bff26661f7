"""Adam chosen on the command line while the learning rate stayed at the toolkit's default
of 1.0, a rate meant for plain SGD: every Adam step moves each weight by about 1.0, so the
network is thrown around and ends near chance.

Reported: "Adam seems to be broken" - https://github.com/OpenNMT/OpenNMT-py/issues/805
(training with `-optim adam` and no other change: "the ppl stays a high constant value,
with accuracy varying erratically"; the maintainer: "you need to set the learning_rate to
0.001 - by default it's 1 because default optim is sgd"). Here a digits MLP (1,300 digits
to train, 497 held out), Adam at lr=1.0 for 200 steps of 64. Fix: Adam at its own default
rate, 0.001.

Measured harm (held-out accuracy after training): 0.09 vs 0.94 at seed 0;
seeds + 1000: 0.12 vs 0.92.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._sched_usage import accuracy, batches, mlp, split

TITLE = "Adam seems to be broken"
LINK = "https://github.com/OpenNMT/OpenNMT-py/issues/805"
EXPECTED = ("LR_TOO_HIGH",)
STEPS = 200
SGD_DEFAULT_RATE = 1.0     # the toolkit's learning_rate default, tuned for plain SGD


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split()
    model = mlp()
    lr = 0.001 if fixed else SGD_DEFAULT_RATE    # BUG when not fixed: SGD's rate given to Adam
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
