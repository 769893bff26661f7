"""A binary classifier with ONE output unit trained with a cross-entropy over its outputs:
with a single output the softmax is 1 for every row, so the cross-entropy is exactly 0
whatever the network says. Here, as in many first scripts, the 0/1 labels are kept as
float columns of shape (N, 1) (the shape BCE wanted), which CrossEntropyLoss reads as class
probabilities: it runs, prints a loss of 0.0 at every step, and no weight ever moves; the
predictions (sigmoid of the output above 0.5) stay those of the random initialisation.

Reported: "Cross entropy always 0.0 with dgcpann" -
https://github.com/darioizzo/dcgp/issues/86 (a network with 2 inputs and 1 output whose
"CE" loss always returns 0.0 while MSE works; the maintainer: with one output the
cross-entropy is a one-class problem, "whatever outputs of the network its always correct
as the class is only one"). Set-up here: a synthetic standardised tabular set
(benchmarks/real_bugs/_beginner_binary.py, 40% positives), an 8-32-32-1 MLP,
``nn.CrossEntropyLoss()`` on the (N, 1) output and the (N, 1) float labels, Adam at 1e-3,
minibatches of 64. Fix: ``nn.BCEWithLogitsLoss()`` on the one output (or two outputs and
integer labels for the cross-entropy).

Measured (held-out accuracy on 500 rows, sigmoid of the output above 0.5): seed 0, 0.41
for the bug against 0.92 for the fixed twin; seeds shifted by 1000, 0.60 against 0.89.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_binary import (accuracy, first_mlp, minibatches,
                                                   standardise, tabular)

TITLE = "Cross entropy always 0.0 with dgcpann"
LINK = "https://github.com/darioizzo/dcgp/issues/86"
EXPECTED = ("SOFTMAX_OVER_ONE_UNIT",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = tabular()
    x_train, x_test = standardise(x_train, x_test)
    model = first_mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    # BUG when not fixed: a cross-entropy over one output is 0 for every row
    loss_fn = nn.BCEWithLogitsLoss() if fixed else nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in minibatches(x_train, y_train, steps):
            loss = loss_fn(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_accuracy = accuracy(torch.sigmoid(model(x_test)) > 0.5, y_test)
    return mon
