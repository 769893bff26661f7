"""Cross-validation that resets the weights before each fold but reuses one optimizer: the
momentum buffers it built on fold 1 still point toward fold 1's solution, and fold 1 was
trained on the rows fold 2 validates on. Information leaks from fold to fold, and a
hyperparameter search rewards a high momentum for it.

Reported: "Is it possible to manually reset momentum in SGD?" -
https://github.com/keras-team/keras/issues/454 (initial parameters saved and loaded back at
each fold, "until I decided to include momentum": the search "converged to a
configuration with a very high momentum and was giving absurdly good results" - the
momentum variable was never reinitialised, "there was information leaking from fold to
fold"). Here a digits MLP's starting weights are kept (a deep copy) and loaded back before
each fold; SGD (lr 0.01, momentum 0.99) is built once; fold 1 trains FIRST_FOLD_STEPS (a
short search trial, not watched) and fold 2 trains under watch with a held-out validation
every VAL_EVERY steps.

Measured (fold 2, seed shift 0): 25 steps in, the bug's held-out loss is 0.95 against the
fixed twin's 2.15, and it ends at 0.21 against 0.25 - fold 1's velocity, built on rows
that include fold 2's held-out fold, carries the reset weights toward fold 1's solution,
so the fold scores better than an honest one. Fix: a new optimizer (fresh state) per fold, or reset its
state with the weights.
"""
import copy

import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp
from benchmarks.real_bugs._folds import fold_splits, held_out_loss

TITLE = "Is it possible to manually reset momentum in SGD?"
LINK = "https://github.com/keras-team/keras/issues/454"
EXPECTED = ("OPTIMIZER_STATE_FROM_EARLIER_RUN",)
STEPS = 300
FIRST_FOLD_STEPS = 60
FOLDS = 5
VAL_EVERY = 25


def train_fold(model, optimizer, x, y, fold, steps, seed, mon=None):
    train, val = fold
    for number, (xb, yb) in enumerate(batches(x[train], y[train], steps, seed=seed), 1):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        if mon is None:
            continue
        if number % VAL_EVERY == 0:
            mon.step(loss, val_loss=held_out_loss(model, x[val], y[val]))
        else:
            mon.step(loss)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    splits = fold_splits(len(x), FOLDS)
    model = mlp()
    initial = copy.deepcopy(model.state_dict())
    # BUG when not fixed: one optimizer (and its momentum buffers) for every fold
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.99)
    train_fold(model, optimizer, x, y, splits[0], FIRST_FOLD_STEPS, seed=1)
    model.load_state_dict(initial)             # the weights do start again for fold 2
    if fixed:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.99)
    with nd.watch(model, optimizer, **watch) as mon:
        train_fold(model, optimizer, x, y, splits[1], steps, seed=2, mon=mon)
    return mon
