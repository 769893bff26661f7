"""A binary classifier with one output unit that ends in a softmax over that unit: a
softmax over a single value is exp(z) / exp(z) = 1 for every row, whatever the weights, so
the "probability" is 1 for every applicant, BCELoss is a constant (0 on the positives,
its clamp of 100 on the negatives) with no gradient, and the network never moves: every
row is predicted positive.

Reported: "changing sofmax to sigmoid" -
https://github.com/GoogleCloudPlatform/cloudml-samples/pull/241 (in the census income
sample, a binary classifier of whether a person earns over $50K, the output layer used a
softmax activation although ``labels_dim`` is 1: "if labels_dim is 1 then having softmax
activation may have bad performance"; merged, changing it to a sigmoid). Set-up here: a
synthetic standardised tabular set (benchmarks/real_bugs/_beginner_binary.py, 40%
positives), an 8-32-32-1 MLP whose output goes through ``nn.Softmax(dim=1)``, BCELoss,
Adam at 1e-3, minibatches of 64. Fix: a sigmoid on the one output.

Measured (held-out accuracy on 500 rows, threshold 0.5): seed 0, 0.42 for the bug (every
row positive) against 0.92 for the fixed twin; seeds shifted by 1000, 0.40 against 0.89.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_binary import (accuracy, first_mlp, minibatches,
                                                   standardise, tabular)

TITLE = "changing sofmax to sigmoid"
LINK = "https://github.com/GoogleCloudPlatform/cloudml-samples/pull/241"
EXPECTED = ("SOFTMAX_OVER_ONE_UNIT",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = tabular()
    x_train, x_test = standardise(x_train, x_test)
    # BUG when not fixed: softmax over the single output unit is always 1
    squash = nn.Sigmoid() if fixed else nn.Softmax(dim=1)
    model = nn.Sequential(first_mlp(), squash)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.BCELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in minibatches(x_train, y_train, steps):
            loss = loss_fn(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_accuracy = accuracy(model(x_test) > 0.5, y_test)
    return mon
