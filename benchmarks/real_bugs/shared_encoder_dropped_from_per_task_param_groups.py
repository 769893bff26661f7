"""A multi-task network whose optimizer is built from one parameter group per task (each task
its own learning rate), with the shared encoder meant to travel in the group of the task that
owns it. The loop picks each task's parameters with ``if`` ... ``if`` ... ``else`` instead of
``if`` ... ``elif`` ... ``else``: for the owning task the first branch sets "encoder + head",
and the ``else`` of the second test then overwrites it with the head alone. The encoder ends
up in no group at all: backward fills its gradients every step and nothing ever applies them,
so every head trains on the encoder's random initial features. The summed loss falls (the
heads fit what they can) and torch raises nothing.

Reported: "Different lr for each task" - https://github.com/cc-ai/climategan/pull/138 (a
per-task learning-rate builder: ``if task == "m"`` takes the encoder's parameters, then ``if
task == "p"`` ... ``else`` takes ``decoders[task]``; the review: "for task `m` the encoder's
parameters will be overwritten"). Here the 8x8 digits (the last 297 held out), a shared
64-64-32 encoder owned by the digit task, a digit head (cross-entropy), a standardised-ink head
and a "painter" that reconstructs the image (squared errors), Adam with rates 3e-3 / 1e-3 /
1e-3 per task, 300 steps of 64 images.

Fix: ``elif task == "painter"``, so the owning task's group keeps the encoder.

Measured (held-out digit accuracy, 297 digits): 0.593 with the bug, 0.872 fixed; seeds + 1000:
0.626 vs 0.875.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._mt161 import accuracy, digits, encoder, rows

TITLE = "Different lr for each task"
LINK = "https://github.com/cc-ai/climategan/pull/138"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS",)
STEPS = 300
RATES = {"digit": 3e-3, "ink": 1e-3, "painter": 1e-3}


class DigitInkPainter(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = encoder()
        self.decoders = nn.ModuleDict({"digit": nn.Linear(32, 10), "ink": nn.Linear(32, 1)})
        self.painter = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64))

    def forward(self, x):
        h = self.encoder(x)
        return self.decoders["digit"](h), self.decoders["ink"](h).squeeze(1), self.painter(h)


def param_groups(model):
    """One group per task at the task's rate (the script as reported)."""
    groups = []
    for task, lr in RATES.items():
        if task == "digit":              # the digit task owns the shared encoder
            params = list(model.encoder.parameters()) + list(model.decoders[task].parameters())
        if task == "painter":            # BUG: an if, not an elif - for "digit" the else
            params = list(model.painter.parameters())        # below drops the encoder
        else:
            params = list(model.decoders[task].parameters())
        groups.append({"params": params, "lr": lr})
    return groups


def fixed_param_groups(model):
    """The same groups, the second test an elif."""
    groups = []
    for task, lr in RATES.items():
        if task == "digit":
            params = list(model.encoder.parameters()) + list(model.decoders[task].parameters())
        elif task == "painter":
            params = list(model.painter.parameters())
        else:
            params = list(model.decoders[task].parameters())
        groups.append({"params": params, "lr": lr})
    return groups


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits()
    ink = x.sum(1)
    ink = (ink - ink.mean()) / ink.std()
    model = DigitInkPainter()
    optimizer = torch.optim.Adam(fixed_param_groups(model) if fixed else param_groups(model))
    with nd.watch(model, optimizer, **watch) as mon:
        for index in rows(len(x), steps):
            optimizer.zero_grad()
            logits, ink_pred, picture = model(x[index])
            loss = (F.cross_entropy(logits, y[index]) + F.mse_loss(ink_pred, ink[index])
                    + F.mse_loss(picture, x[index]))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_accuracy = accuracy(model(x_held)[0], y_held)
    return mon
