"""A churn classifier whose forward ends in a sigmoid, trained with BCEWithLogitsLoss,
which applies its own sigmoid: the loss sees sigmoid(sigmoid(z)), a probability stuck in
(0.5, 0.73). Its gradient on the negatives never vanishes and is damped by the two
sigmoids' slopes; the probability the loss trains says "churn" for every customer, and the
model's own output (thresholded at 0.5, as its sigmoid invites) is pushed around by a loss
that cannot be satisfied.

Reported: "F.binary_cross_entropy_with_logits already applies a sigmoid" -
https://github.com/itakurah/focal-loss-pytorch/pull/5 ("Doing the operation before applies
the sigmoid twice ... the second applies sigmoid([0,1]) = [0.5,0.73], meaning the lowest
score the model will see is 0.5"). Set-up here: a synthetic standardised churn table
(benchmarks/real_bugs/_beginner_binary.py, 25% positives), an 8-32-32-1 MLP ending in
``nn.Sigmoid()``, ``nn.BCEWithLogitsLoss()``, SGD at 0.1, minibatches of 64. Fix: drop
the sigmoid from the forward during training (the loss applies it; use it at prediction).

Measured (held-out accuracy on 500 rows; 75% of them do not churn): thresholding the model's
own sigmoid output at 0.5, seed 0, 0.74 for the bug against 0.89 for the fixed twin; seeds
shifted by 1000, 0.77 against 0.94. Thresholding the probability the loss trains
(sigmoid of the output), 0.26 and 0.23 for the bug (every customer "churns").
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_binary import (accuracy, first_mlp, minibatches,
                                                   standardise, tabular)

TITLE = "F.binary_cross_entropy_with_logits already applies a sigmoid"
LINK = "https://github.com/itakurah/focal-loss-pytorch/pull/5"
EXPECTED = ("DOUBLE_SIGMOID",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = tabular(positive_rate=0.25)
    x_train, x_test = standardise(x_train, x_test)
    # BUG when not fixed: the forward already ends in a sigmoid
    model = first_mlp() if fixed else nn.Sequential(first_mlp(), nn.Sigmoid())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.BCEWithLogitsLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in minibatches(x_train, y_train, steps):
            loss = loss_fn(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        out = model(x_test)
        mon.held_out_accuracy = accuracy(torch.sigmoid(out) > 0.5, y_test)
        mon.held_out_accuracy_of_output = accuracy(out > (0.5 if not fixed else 0.0), y_test)
    return mon
