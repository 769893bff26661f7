"""A learning-rate grid search that builds a new network and optimizer for every trial but
one early-stopping callback before the loop: the callback keeps the first trial's best
validation loss and its patience count, so the second trial, which starts from random
weights, cannot beat that best and is stopped at its first validation - every later trial
is scored after a few dozen steps.

Reported: "grid_search issue" - https://github.com/havakv/pycox/issues/28 (a loop over
learning rates rebuilding ``net`` and ``model`` each time, with ``callbacks`` defined once
before it: "the training process couldn't repeat/initialize"; the first trial logs its
epochs, the second and third log only epoch 0). Here a digits MLP per trial, SGD at each
grid rate, one ``EarlyStopper`` (patience 3, state set when built); trial 1 (lr 0.1)
trains (not watched) until it stops or runs out, trial 2 (lr 0.01) trains under watch with
its validation loss every 25 steps and stops when the stopper says so. Fix: build the
callback inside the trial loop (or reset its state when training begins).

Measured (trial 2's held-out accuracy at its end): seed 0: 0.41 vs 0.94; seeds + 1000:
0.70 vs 0.94.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import classification, mlp
from benchmarks.real_bugs._kfold_search import evaluate, train

TITLE = "grid_search issue"
LINK = "https://github.com/havakv/pycox/issues/28"
EXPECTED = ("STOPPED_WHILE_VALIDATION_IMPROVING",)
STEPS = 400
GRID = (0.1, 0.01)
PATIENCE = 3
VAL_ROWS = 400


class EarlyStopper:
    """pycox/keras-style early stopping: best score and counter set in __init__."""

    def __init__(self, patience=PATIENCE):
        self.patience, self.best, self.count = patience, float("inf"), 0

    def __call__(self, val_loss):
        if val_loss < self.best:
            self.best, self.count = val_loss, 0
        else:
            self.count += 1
        return self.count >= self.patience


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    val, rest = order[:VAL_ROWS], order[VAL_ROWS:]
    stopper = EarlyStopper()                          # BUG when not fixed: one for all trials
    model = optimizer = None
    for trial, lr in enumerate(GRID):
        if fixed:
            stopper = EarlyStopper()
        model = mlp()
        optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        if trial == len(GRID) - 1:
            break
        train(model, optimizer, x[rest], y[rest], steps, val=(x[val], y[val]), stop=stopper)
    with nd.watch(model, optimizer, **watch) as mon:
        train(model, optimizer, x[rest], y[rest], steps, mon=mon, val=(x[val], y[val]),
              stop=stopper)
    mon.fold_score = evaluate(model, x[val], y[val])
    return mon
