"""Resuming from a general checkpoint as PyTorch's "Saving and loading a general checkpoint"
recipe wrote it: the new model is ``model``, but the optimizer is built over
``net.parameters()`` - the network the checkpoint was saved from, still around in the same
session (or any other copy). ``model.load_state_dict`` and ``optimizer.load_state_dict`` both
succeed, the loop trains ``model``, and every ``optimizer.step()`` moves ``net`` instead:
the resumed model never changes and its loss stays where the checkpoint left it.

Reported: "Problem of 'SAVING AND LOADING A GENERAL CHECKPOINT IN PYTORCH'" -
https://github.com/pytorch/tutorials/issues/1430 (the recipe's ``model = Net()`` followed by
``optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)``: "optimizer should be
loaded parameters of model rather than net"; the recipe was corrected). Here a digits MLP
(``net``) trains 40 steps with SGD and momentum, model and optimizer state are saved, and
the run resumes from that checkpoint for 150 more steps as the recipe shows.

Measured (150 resumed steps, 297 held-out digits): the bug's loss stays at the checkpoint's
2.14 (last 10 steps 2.12) and its held-out accuracy at 0.66; the fixed twin goes on to a
loss of 0.52 (last 10 steps) and an accuracy of 0.85. Fix: ``optimizer = optim.SGD(model.parameters(), ...)``, the
parameters of the model that is trained.
"""
import torch
from torch import nn, optim

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Problem of \"SAVING AND LOADING A GENERAL CHECKPOINT IN PYTORCH\""
LINK = "https://github.com/pytorch/tutorials/issues/1430"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS",)
STEPS = 150
FIRST_STEPS = 40
HELD_OUT = 297


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = x[:-HELD_OUT], y[:-HELD_OUT]
    # the first session: train net, save a general checkpoint
    net = mlp(64, 64, 10)
    optimizer = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    for xb, yb in batches(x_train, y_train, FIRST_STEPS, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(net(xb), yb).backward()
        optimizer.step()
    checkpoint = {"model_state_dict": {k: v.clone() for k, v in net.state_dict().items()},
                  "optimizer_state_dict": optimizer.state_dict()}
    # resuming, as the recipe writes it
    model = mlp(64, 64, 10)
    if fixed:
        optimizer = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    else:
        optimizer = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)   # BUG: net, not model
    model.load_state_dict(checkpoint["model_state_dict"])
    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
    model.train()
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x_train, y_train, steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
