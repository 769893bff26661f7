"""Per-class weights 1 / count multiplied into a per-row loss that is then averaged: the
weights are a few thousandths, so the loss - and every gradient - is a few thousandths of
the unweighted one. The classes are balanced against each other as intended, but with SGD
the effective learning rate is hundreds of times smaller, and in the steps the run has the
classifier barely moves off chance.

Reported: "Class weights should be normalized" -
https://github.com/EthanRosenthal/spacecutter/issues/16 ("Currently per-class weights are
simply multiplied with the raw NLL loss, which skews the effective learning rate. They
should be normalized by sum by default to avoid this", pointing to the PyTorch forum
thread "The value of weights for weighted cross entropy should be normalized?"). Here the
ten digit classes thinned to a long tail (180 rows of the 0s down to 18 of the 9s), an
MLP, SGD at 0.1, ``cross_entropy(..., reduction='none') * (1 / counts)[y]`` averaged.
Fix: normalise the weights (here to a mean of 1 over the training rows), or let
``CrossEntropyLoss(weight=...)`` divide by the weights' sum itself.

Measured (300 steps, 300 held-out digits of the same long tail): the bug's accuracy
0.47, balanced accuracy (the mean of the per-class recalls) 0.28 - it has learned little
beyond the frequent classes; the fixed twin's 0.91 and 0.89.

Named as CLASS_WEIGHTS_SHRINK_LOSS (the stepped loss about 1/36 of the least the
per-row cross-entropy over the output can average); missed as it came.
"""
import numpy as np
import torch
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Class weights should be normalized"
LINK = "https://github.com/EthanRosenthal/spacecutter/issues/16"
EXPECTED = ("CLASS_WEIGHTS_SHRINK_LOSS",)
STEPS = 300
HELD_OUT = 300
KEEP = np.array([1.0, 0.7, 0.5, 0.36, 0.27, 0.2, 0.16, 0.13, 0.11, 0.1])   # share kept per class


def long_tail(seed=0):
    """The digits thinned class by class to ``KEEP``: (x, y) for training and held-out."""
    rng = np.random.default_rng(seed)
    x, y = classification()
    rows = np.concatenate([rng.permutation(np.flatnonzero(y.numpy() == c))
                           [:int(round(KEEP[c] * (y == c).sum().item()))] for c in range(10)])
    rows = torch.from_numpy(rng.permutation(rows))
    test, train = rows[:HELD_OUT], rows[HELD_OUT:]
    return x[train], y[train], x[test], y[test]


def class_weights(y, fixed):
    weights = 1.0 / torch.bincount(y, minlength=10).float()   # BUG: 1/count, ~0.002-0.05
    if fixed:
        weights = weights / weights[y].mean()      # the fix: a mean weight of 1 per row
    return weights


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = long_tail()
    weights = class_weights(y, fixed)

    def weighted_cross_entropy(logits, target):
        return (F.cross_entropy(logits, target, reduction="none") * weights[target]).mean()

    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    mon = train_watched(model, optimizer, weighted_cross_entropy, batches(x, y, steps), **watch)
    with torch.no_grad():
        predicted = model(x_test).argmax(1)
    mon.accuracy = round(float((predicted == y_test).float().mean()), 3)
    mon.balanced_accuracy = round(float(np.mean([(predicted[y_test == c] == c).float().mean()
                                                 for c in range(10)])), 3)
    return mon
