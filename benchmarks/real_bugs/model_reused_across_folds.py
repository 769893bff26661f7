"""K-fold cross-validation with one model instance built before the fold loop: every fold
goes on training the weights the previous folds left, so the rows a fold validates on were
training rows a fold earlier, and the fold scores climb fold after fold.

Reported: "Reuse model.fit may overestimate the performance in cross-validation" -
https://github.com/deepchem/deepchem/issues/926 (one model created once and fitted on each
fold's training set in turn; "the performance of the 2nd fold was better than the 1st; the
3rd was better than the 1st and the 2nd"; the weights were not initialised again per fold;
the same in antmarakis/Machine-Learning#3, 61% -> 84% over five folds, fixed by building
the model inside the loop). Here a digits MLP runs 5-fold cross-validation; fold 1 trains
(not watched) and fold 2 trains under watch, validating on its held-out fold every
VAL_EVERY steps (the validation loss passed to ``mon.step``).

Measured (fold 2, seed shift 0): the bug's first training loss is 0.04 and its first
validation loss 0.05 (its held-out rows were fold 1's training rows), held-out accuracy at
the end 0.986; the fixed twin starts at 2.28 and 0.84 and ends at accuracy 0.969 - the
bug's fold score is the better one, and it is wrong. Fix: build the
model (and its optimizer) inside the fold loop.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp
from benchmarks.real_bugs._folds import fold_splits

TITLE = "Reuse model.fit may overestimate the performance in cross-validation"
LINK = "https://github.com/deepchem/deepchem/issues/926"
EXPECTED = ("VALIDATION_ROWS_TRAINED_IN_EARLIER_RUN",)
STEPS = 300
FOLDS = 5
VAL_EVERY = 25


def held_out(model, x, y):
    model.eval()
    with torch.no_grad():
        logits = model(x)
    model.train()
    return float(F.cross_entropy(logits, y)), float((logits.argmax(1) == y).float().mean())


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    splits = fold_splits(len(x), FOLDS)
    model = mlp()                              # BUG when not fixed: one model for all folds
    (train, val) = splits[0]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for xb, yb in batches(x[train], y[train], STEPS, seed=1):
        optimizer.zero_grad()
        F.cross_entropy(model(xb), yb).backward()
        optimizer.step()
    train, val = splits[1]
    if fixed:
        model = mlp()                          # a fresh model for the next fold
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for number, (xb, yb) in enumerate(batches(x[train], y[train], steps, seed=2), 1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            if number % VAL_EVERY == 0:
                mon.step(loss, val_loss=held_out(model, x[val], y[val])[0])
            else:
                mon.step(loss)
    return mon
