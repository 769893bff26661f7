"""A regressor whose layer helper puts dropout after EVERY linear layer, the output layer
included: in training half of the predictions are zeroed and the other half doubled before
the squared error sees them. The error of a prediction y then averages
(y - t)^2 + y^2 p / (1 - p), and its minimum sits at y = (1 - p) t: the network learns to
answer half of the target, and in eval mode (no dropout) it does.

Reported: "BUG: Dropout method in runDArch file" - https://github.com/maddin79/darch/issues/12
("the dropout should only be applied to the hidden layers but not the output layer. But in
the runDArch code ... the dropout change is applied to the last output layer ... As a
result, when dropout is applied, the predictions are worsened."; the maintainer: "You are
right, this has been fixed"). Here an MLP regresses the digit's (standardised) value from
its pixels, built from a ``Linear + Dropout(0.5)`` helper used for every layer. Fix: no
dropout after the output layer.

Measured (400 steps, 297 held-out digits): the bug's R^2 0.53, the fixed twin's 0.77.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, regression, train_watched

TITLE = "BUG: Dropout method in runDArch file"
LINK = "https://github.com/maddin79/darch/issues/12"
EXPECTED = ("DROPOUT_ON_OUTPUT",)
STEPS = 400
HELD_OUT = 297
P_DROP = 0.5


def layer(inputs, outputs, activation=True):
    parts = [nn.Linear(inputs, outputs)]
    if activation:
        parts.append(nn.ReLU())
    parts.append(nn.Dropout(P_DROP))
    return parts


def build(fixed):
    output = [nn.Linear(128, 1)] if fixed else layer(128, 1, activation=False)   # BUG
    return nn.Sequential(*layer(64, 128), *layer(128, 128), *output)


def squared_error(prediction, target):
    return nn.functional.mse_loss(prediction.squeeze(1), target)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = regression()
    model = build(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, squared_error,
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    model.eval()
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).squeeze(1)
    truth = y[-HELD_OUT:]
    mon.r2 = round(float(1 - ((predicted - truth) ** 2).mean() / truth.var()), 3)
    return mon
