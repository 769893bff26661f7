"""K-fold cross-validation that builds a new model in every fold but one optimizer before
the fold loop: the optimizer holds the first fold's parameters, so from fold 2 on it steps
a model nobody evaluates while the fold's own model keeps its random initial weights, and
the fold is scored on an untrained network.

Reported: "Opimizer issue (found loss = `NaN` in second fold)" -
https://github.com/IoBT-VISTEC/MIN2Net/issues/1 (the k-fold script declared a new model in
the loop but kept the optimizer object built once: "the second loop attempts to use the
first initialize object of the optimizer ... Even if the new model object is declared within
the loop"; the fix, "the optimizer must be assigned in each and every fold"). In Keras the
reused optimizer gave NaN; in PyTorch the same mistake leaves the fold's model unstepped.
Here a digits MLP runs 5-fold cross-validation; fold 1 trains (not watched) and fold 2
trains under watch with its held-out loss every 25 steps. Fix: build the optimizer inside
the fold loop, on the fold's model.

Measured (fold 2's held-out accuracy after its 300 steps): seed 0: 0.06 vs 0.97;
seeds + 1000: 0.20 vs 0.96.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import classification, mlp
from benchmarks.real_bugs._kfold_search import evaluate, kfold, train

TITLE = "Opimizer issue (found loss = `NaN` in second fold)"
LINK = "https://github.com/IoBT-VISTEC/MIN2Net/issues/1"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS",)
STEPS = 300
FOLDS = 5
LR = 0.1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    splits = kfold(len(x), FOLDS)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)  # BUG: built once
    train_rows, val_rows = splits[0]
    train(model, optimizer, x[train_rows], y[train_rows], steps)          # fold 1
    train_rows, val_rows = splits[1]
    model = mlp()                                                         # fold 2's model
    if fixed:
        optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        train(model, optimizer, x[train_rows], y[train_rows], steps, mon=mon,
              val=(x[val_rows], y[val_rows]))
    mon.fold_score = evaluate(model, x[val_rows], y[val_rows])
    return mon
