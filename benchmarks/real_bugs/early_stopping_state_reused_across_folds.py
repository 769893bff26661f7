"""Cross-validation with one early-stopping object for every fold: its best score and its
patience counter are set when it is built, so fold 2 is compared with fold 1's best
validation loss, cannot beat it while it is still learning, and is stopped after a few
validations: the later folds are scored on barely trained models.

Reported: "Allow re-use of EarlyStopping callback objects" -
https://github.com/keras-team/keras/pull/3000 (the callback's state variables "were
initialized in ``__init__()``, so attempting to re-use the same object resulted in
immediate stopping", which broke early stopping in cross-validation; the fix resets them
when each training begins; merged). Here a digits MLP is built fresh per fold; one
``EarlyStopping`` (patience 3, state set in ``__init__``) serves all folds; fold 1 trains
(not watched) and fold 2 trains under watch, validating every VAL_EVERY steps and stopping
when the object says so.

Measured (fold 2, seed shift 0): fold 1 ended with the stopper's count at its patience,
so the bug's fold 2 stops at its first validation, after 25 steps of 400, with a held-out
loss of 1.57 and accuracy 0.72; the fixed twin trains its 400 steps (held-out loss falling
to 0.11, accuracy 0.97). Fix: reset the stopper's best score
and counter at the start of each fold (or build one per fold).
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp
from benchmarks.real_bugs._folds import fold_splits, held_out_loss

TITLE = "Allow re-use of EarlyStopping callback objects"
LINK = "https://github.com/keras-team/keras/pull/3000"
EXPECTED = ("STOPPED_WHILE_VALIDATION_IMPROVING",)
STEPS = 400
FOLDS = 5
VAL_EVERY = 25


class EarlyStopping:
    """Stops when the validation loss has not beaten its best for ``patience`` checks."""

    def __init__(self, patience=3):
        self.patience = patience
        self.reset()

    def reset(self):
        self.best, self.waited = float("inf"), 0

    def should_stop(self, val_loss):
        if val_loss < self.best - 1e-4:
            self.best, self.waited = val_loss, 0
        else:
            self.waited += 1
        return self.waited >= self.patience


def train_fold(model, stopper, x, y, fold, steps, seed, mon=None):
    train, val = fold
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    context = nd.watch(model, optimizer, **mon) if mon is not None else None
    watched = context.__enter__() if context is not None else None
    try:
        for number, (xb, yb) in enumerate(batches(x[train], y[train], steps, seed=seed), 1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            if number % VAL_EVERY:
                if watched is not None:
                    watched.step(loss)
                continue
            val_loss = held_out_loss(model, x[val], y[val])
            if watched is not None:
                watched.step(loss, val_loss=val_loss)
            if stopper.should_stop(val_loss):
                break
    finally:
        if context is not None:
            context.__exit__(None, None, None)
    return watched


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    splits = fold_splits(len(x), FOLDS)
    stopper = EarlyStopping()                  # one stopper for every fold
    train_fold(mlp(), stopper, x, y, splits[0], STEPS, seed=1)
    if fixed:
        stopper.reset()                        # BUG when not fixed: fold 1's best and count
    return train_fold(mlp(), stopper, x, y, splits[1], steps, seed=2, mon=watch)
