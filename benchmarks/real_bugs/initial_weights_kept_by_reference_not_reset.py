"""Two optimizers compared from the same starting weights, the starting weights kept as
``model_state = model.state_dict()``: the dict holds the model's own tensors, so the first
run's optimizer steps change it in place. ``model.load_state_dict(model_state)`` before the
second run copies the trained weights onto themselves and resets nothing: the second
optimizer starts from the first one's trained model, and the comparison (and any plot of
its loss from "the same initialisation") is wrong.

Reported: "Update chapter6.py" - https://github.com/dvgodoy/PyTorchStepByStep/pull/28
("``model_state`` gets updated after training. This causes next ``sbs`` instance (one for
``Adam``) to start from previous model parameters (which ``load_state_dict`` was trying to
prevent)... One solution is to just ``deepcopy``"; the author: "You're absolutely right";
merged; the same no-op reset in kmzzhang/nbi#11: "any attempt to reload state dict in
current version is doing nothing"). Here a digits MLP trains 150 steps with SGD 0.05 from a
kept ``model_state``, is "reset" from it, and trains 150 steps with Adam 1e-3 under watch.

Measured (the watched Adam run, 150 steps): the bug's Adam run starts at a loss of 1.51
(the SGD run's end) and ends at 0.50 (last 10 steps); the fixed twin's starts at 2.32 and
ends at 0.77: the comparison credits Adam with the SGD run's progress. Fix: ``model_state =
copy.deepcopy(model.state_dict())`` (or save it to a file) before the first run.
"""
import copy

import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Update chapter6.py"
LINK = "https://github.com/dvgodoy/PyTorchStepByStep/pull/28"
EXPECTED = ("RESET_WEIGHTS_ALIAS_LIVE_WEIGHTS",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp(64, 64, 10)
    if fixed:
        model_state = copy.deepcopy(model.state_dict())
    else:
        model_state = model.state_dict()               # BUG: the live tensors, not a copy
    loss_fn = nn.CrossEntropyLoss()
    # the first optimizer of the comparison
    sgd = torch.optim.SGD(model.parameters(), lr=0.05)
    for xb, yb in batches(x, y, STEPS, seed=1):
        sgd.zero_grad()
        loss_fn(model(xb), yb).backward()
        sgd.step()
    # back to the starting weights for the second one
    model.load_state_dict(model_state)
    adam = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, adam, loss_fn, batches(x, y, steps), **watch)
