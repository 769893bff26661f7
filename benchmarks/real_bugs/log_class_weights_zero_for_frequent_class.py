"""Class weights computed as log(max_count / count): the most frequent class gets
log(1) = 0, so its rows add nothing to the loss. The model never learns to answer it -
every softmax step on the other classes pushes its score down - and the commonest class
is the one it gets wrong every time.

Reported: "class_weight of type log produces 0.0 weight on most frequent class" -
https://github.com/IndicoDataSolutions/finetune/issues/181 (``compute_class_weights('log',
y)`` returns 0.0 for the most frequent class: "This makes that training ignores the most
frequent class"; the maintainer: "Good catch ... I've opted to go for the adding 1 option
in PR #183", the weights become ``np.log(ratio) + 1``). Here ten digit classes thinned to
a long tail (the 0s all kept, 180 rows, down to 18 of the 9s), an MLP, cross-entropy with
the library's 'log' weights. Fix: ``np.log(max_count / count) + 1``.

Measured (300 steps, 300 held-out digits, the same long tail): the bug's accuracy 0.64
with the 0s at 0.00 (none predicted), the fixed twin's 0.94 (0s at 0.99).

Named as CLASS_WEIGHT_ZERO (class 0 weighs 0, holds 28% of the sampled targets, and the
model never picks it late in the run); missed as it came.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "class_weight of type log produces 0.0 weight on most frequent class"
LINK = "https://github.com/IndicoDataSolutions/finetune/issues/181"
EXPECTED = ("CLASS_WEIGHT_ZERO",)
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
    """finetune's ``compute_class_weights('log', y)``: one weight per class id."""
    counts = np.bincount(y.numpy(), minlength=10)
    ratio = counts.max() / counts
    weights = np.log(ratio) + 1 if fixed else np.log(ratio)   # BUG: log(1) = 0 for the commonest
    return torch.tensor(weights, dtype=torch.float32)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = long_tail()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss(weight=class_weights(y, fixed))
    mon = train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
    with torch.no_grad():
        predicted = model(x_test).argmax(1)
    mon.accuracy = round(float((predicted == y_test).float().mean()), 3)
    mon.frequent_class_recall = round(float((predicted[y_test == 0] == 0).float().mean()), 3)
    return mon
