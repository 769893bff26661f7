"""The epoch helper builds a fresh Adam optimizer every time it is called: every epoch
starts from empty moment estimates and a step count of zero, so the momentum gathered over
the previous epoch is thrown away and each epoch's first steps are Adam's bias-corrected
first steps again (every weight moved by about the full learning rate, whatever its
gradient's size).

Reported: "Maintain optimiser object during training" -
https://github.com/alan-turing-institute/deepsensor/issues/47 ("deepsensor.train.train_epoch
re-instantiates the Adam optimiser object at the start of each epoch. This is sub-optimal
because it loses the momentum information gathered from previous training epochs"; keeping
one optimizer "improves the training loss and also decreases the spread of the loss after
the initial epochs by ~20%"). Here a digits MLP trained by a train_epoch(model, data, lr)
helper of 25 batches, called six times, the model watched as the report's users would
(the optimizer lives inside the helper). Fix: build the optimizer once and pass it in.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Maintain optimiser object during training"
LINK = "https://github.com/alan-turing-institute/deepsensor/issues/47"
EXPECTED = ("OPTIMIZER_STATE_RESET",)
STEPS = 150
EPOCH = 25           # batches per call of the epoch helper
LR = 3e-3


def train_epoch(model, data, mon, lr=LR, opt=None):
    """One epoch, as the report's helper: it builds its own optimizer unless given one."""
    if opt is None:
        opt = torch.optim.Adam(model.parameters(), lr=lr)   # BUG (when called without opt):
                                                             # a new Adam, empty state, each
                                                             # epoch
    loss_fn = nn.CrossEntropyLoss()
    for xb, yb in data:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        mon.step(loss)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    data = batches(x, y, steps)
    opt = torch.optim.Adam(model.parameters(), lr=LR) if fixed else None
    with nd.watch(model, **watch) as mon:
        for _ in range(steps // EPOCH):
            train_epoch(model, (b for _, b in zip(range(EPOCH), data)), mon, opt=opt)
    return mon
