"""Training paused and resumed across notebook sessions (a Colab runtime reset), with the
class-name -> index table rebuilt in each session by enumerating a ``set`` of the class
names. A set of strings iterates in an order that changes with every new interpreter
(string hashing is salted per process), so after the restart each class gets another
index: the checkpoint's output units now answer for the wrong classes. The resumed run's
loss jumps, then falls again as the model relearns its output layer, and after the extra
epochs it is still well behind the model it was resumed from. Saving and loading the
model and optimizer were not at fault.

Reported: "Unable to pause and resume training (loading a model) without getting a small
jump in training loss" - https://discuss.pytorch.org/t/unable-to-pause-and-resume-training-loading-a-model-without-getting-a-small-jump-in-training-loss/88373
("each time my runtime was reset, a single label would take different values"; the fix:
enumerate ``sorted(training_classes)``). Here the digits with their class names ("zero" ..
"nine") as the labels: the first session trains an MLP (64 -> 64 -> 10, Adam 1e-3,
batches of 64) for 300 steps and saves model and optimizer; the second session loads both
and trains 100 more steps (the watched run); each session's set order stands in for the
per-process hash order (a seeded shuffle of the names). Fix: the table from the sorted
names, identical in every session.

Measured (held-out accuracy on 397 digits, after the resumed training): 0.80 with the
bug, 0.97 fixed; seeds + 1000: 0.86 vs 0.94.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, mlp
from benchmarks.real_bugs._nb147 import accuracy, split

TITLE = ("Unable to pause and resume training (loading a model) without getting a small "
         "jump in training loss")
LINK = ("https://discuss.pytorch.org/t/unable-to-pause-and-resume-training-loading-a-model-"
        "without-getting-a-small-jump-in-training-loss/88373")
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 100
FIRST_SESSION_STEPS = 300
NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def set_order(names, session):
    """The order ``set(names)`` iterates in, in one interpreter session: fixed within a
    session, different in the next (a seeded shuffle stands in for the salted hashes)."""
    order = np.random.default_rng(100 + session).permutation(len(names))
    return [names[i] for i in order]


def class_table(session, fixed):
    training_classes = set_order(NAMES, session)
    if fixed:
        training_classes = sorted(training_classes)     # the fix
    return {name: i for i, name in enumerate(training_classes)}


def labelled(digits, session, fixed):
    """The session's integer targets for the digits' class names."""
    table = class_table(session, fixed)
    return torch.tensor([table[NAMES[d]] for d in digits.tolist()])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, digits, xh, digits_held = split()
    loss_fn = nn.CrossEntropyLoss()

    # session 1: train, then save the checkpoint
    y = labelled(digits, 1, fixed)
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for xb, yb in batches(x, y, FIRST_SESSION_STEPS, seed=1):
        optimizer.zero_grad()
        loss_fn(model(xb), yb).backward()
        optimizer.step()
    checkpoint = {"model": model.state_dict(), "optimizer": optimizer.state_dict()}

    # session 2 (after the runtime reset): the table rebuilt, the checkpoint loaded
    y, yh = labelled(digits, 2, fixed), labelled(digits_held, 2, fixed)
    model = mlp()
    model.load_state_dict(checkpoint["model"])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    optimizer.load_state_dict(checkpoint["optimizer"])
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, seed=2):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
