"""A two-output binary classifier (one column per class, one-hot targets,
BCEWithLogitsLoss) on an imbalanced set, given "class weights" through ``pos_weight`` as
``[0.6, 0.4]``: the larger weight on the majority class and the smaller on the rare one.
``pos_weight`` scales each column's positive term, so the rare class's rows count for 0.4
of a row in its own column while the common class's count for 0.6: the rare class is
weighted down instead of up, and the model rarely predicts it.

Reported: "Weights in BCEWithLogitsLoss" -
https://discuss.pytorch.org/t/weights-in-bcewithlogitsloss/27452 (with two unbalanced
classes the poster wants "class zero weighted by 0.6 and class One weighted by 0.4" and
writes ``pos_weight = torch.FloatTensor([.6, .4])``; the answer: pos_weight weights only
the positive term, "pos_weight > 1 will increase the recall while pos_weight < 1 will
increase the precision"). Set-up here: a synthetic standardised credit-default table
(benchmarks/real_bugs/_beginner_binary.py, 12% defaults), an 8-32-32-2 MLP, one-hot
targets, ``BCEWithLogitsLoss(pos_weight=tensor([.6, .4]))``, Adam at 1e-3, minibatches of
64; the prediction is the arg-max column. Fix: each column's pos_weight is its negatives
over its positives (``[defaults / non-defaults, non-defaults / defaults]``).

The thread does not show the model; with one output column this torch rejects the
two-value pos_weight (a broadcast error), with one column per class it runs silently, as
here.

Measured (held-out balanced accuracy on 500 rows, arg-max column): seed 0, 0.80 for the
bug against 0.94 for the fixed twin; seeds shifted by 1000, 0.79 against 0.92.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_binary import (balanced_accuracy, first_mlp,
                                                   minibatches, standardise, tabular)

TITLE = "Weights in BCEWithLogitsLoss"
LINK = "https://discuss.pytorch.org/t/weights-in-bcewithlogitsloss/27452"
EXPECTED = ("CLASS_WEIGHTS_REVERSED",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = tabular(positive_rate=0.12)
    x_train, x_test = standardise(x_train, x_test)
    model = first_mlp(outputs=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    if fixed:
        defaults = y_train.sum()
        pos_weight = torch.stack([defaults / (len(y_train) - defaults),
                                  (len(y_train) - defaults) / defaults])
    else:
        pos_weight = torch.tensor([0.6, 0.4])    # BUG: "class 0 by 0.6, class 1 by 0.4"
    one_hot = torch.cat([1 - y_train, y_train], 1)
    loss_fn = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in minibatches(x_train, one_hot, steps):
            loss = loss_fn(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x_test).argmax(1, keepdim=True)
        mon.held_out_balanced_accuracy = balanced_accuracy(predicted, y_test)
    return mon
