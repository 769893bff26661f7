"""A notebook's first experiment breaks its network on purpose (a huge learning rate on
full batches), and the next cell "brings it back" by training that same network object
with the learning rate and batch size that work for a fresh one. The sigmoid units the
huge steps drove far into their flat tails stay there: their gradients are ~0, the loss
creeps down, and the network stays far below what a fresh one reaches in a couple of
epochs. Nothing errors; the second cell simply keeps training a half-trained (broken)
model instead of a new one.

Reported: "Why is it hard to bring back a once broken neural network to usable results?" -
https://stats.stackexchange.com/questions/436737/why-is-it-hard-to-bring-back-a-once-broken-neural-network-to-usable-results
(Nielsen's sigmoid network with quadratic cost; after lr 300 on batches of 5000, training
the same net again with lr 3.0, batch 10 gives about 39% where a fresh net reaches 90% after
one epoch). Here the same recipe in torch on the 8x8 digits: 64 -> 20 (sigmoid) -> 10
(sigmoid), quadratic cost on one-hot targets, default initialisation; the earlier cell:
30 full-batch steps (1,400 digits) at lr 300; the watched cell: SGD lr 3.0 on batches of
10, 300 steps. Fix: build a fresh network (``net = Network()``) before the second training.

Measured (held-out accuracy on 397 digits): 0.10 with the bug, 0.83 fixed; seeds + 1000:
0.13 vs 0.89 (the earlier cell leaves 91% of the hidden and all of the output sigmoids
below 0.01 or above 0.99, the hidden weight norm at 56; the report's net kept about 39%,
this smaller one is left at chance).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._nb147 import accuracy, split

TITLE = "Why is it hard to bring back a once broken neural network to usable results?"
LINK = ("https://stats.stackexchange.com/questions/436737/"
        "why-is-it-hard-to-bring-back-a-once-broken-neural-network-to-usable-results")
EXPECTED = ("SATURATED_ACTIVATIONS", "INIT_SCALE_TOO_LARGE")
STEPS = 300
BREAK_STEPS, BREAK_LR = 30, 300.0


class Network(nn.Module):
    def __init__(self, sizes=(64, 20, 10)):
        super().__init__()
        self.hidden, self.out = nn.Linear(sizes[0], sizes[1]), nn.Linear(sizes[1], sizes[2])

    def forward(self, x):
        return torch.sigmoid(self.out(torch.sigmoid(self.hidden(x))))


def quadratic_cost(output, labels):
    target = nn.functional.one_hot(labels, 10).float()
    return 0.5 * ((output - target) ** 2).sum(dim=1).mean()


def sgd(net, x, y, steps, batch_size, lr, mon=None, seed=0):
    optimizer = torch.optim.SGD(net.parameters(), lr=lr)
    for xb, yb in batches(x, y, steps, batch_size=batch_size, seed=seed):
        optimizer.zero_grad()
        loss = quadratic_cost(net(xb), yb)
        loss.backward()
        optimizer.step()
        if mon is not None:
            mon.step(loss)
    return optimizer


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = split()
    # an earlier cell: the experiment with a far too large rate, on full batches
    net = Network()
    sgd(net, x, y, BREAK_STEPS, batch_size=len(x), lr=BREAK_LR, seed=1)
    if fixed:
        net = Network()                  # the fix: a fresh network for the real training
    # the next cell: the settings that work, on whatever ``net`` now holds (BUG: the broken one)
    optimizer = torch.optim.SGD(net.parameters(), lr=3.0)
    with nd.watch(net, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=10, seed=0):
            optimizer.zero_grad()
            loss = quadratic_cost(net(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(net, xh, yh)
    return mon
