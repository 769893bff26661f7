"""Cross-validation with the optimizer and its ReduceLROnPlateau scheduler built once,
before the fold loop: the weights are re-initialised for each fold, but the learning rate
the scheduler cut during fold 1 stays cut, so every later fold trains at a fraction of the
rate it was meant to (and is scored as if it had been trained properly).

Reported: "Fix the issue for cross_validation with ReduceLROnPlateau" -
https://github.com/frankkramer-lab/MIScnn/pull/71 (with k-fold cross-validation and the
ReduceLROnPlateau callback, "when the training of the first fold is over, learning rate is
still reduced", so from the second fold on training is slower; merged). Here a digits MLP
is re-initialised per fold with ``reset_parameters``; SGD 0.1 and ReduceLROnPlateau
(factor 0.1, patience 1) are built once; fold 1 trains to its plateau (1200 steps, not
watched) with a validation every VAL_EVERY steps feeding the scheduler; fold 2 trains
under watch.

Measured (fold 2, seed shift 0): fold 1's plateaus cut the rate from 0.1 to 1e-5, so the
bug's fold 2 starts from fresh weights at 1e-5 (and the carried scheduler, whose best is
fold 1's, cuts it on to 1e-8); it ends at a training loss of 2.32 (last 10 steps; chance
is 2.30) and a held-out loss of 2.32 (accuracy 0.21); the fixed twin keeps lr 0.1 and ends
at 0.30 and 0.31 (accuracy 0.93). Until this batch's fix of the script (first commit: fold
1 trained 600 steps and was never cut, which is not what the report describes) the fold
started at 0.1. Fix: build the optimizer and the scheduler inside the fold loop.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp
from benchmarks.real_bugs._folds import fold_splits, held_out_loss

TITLE = "Fix the issue for cross_validation with ReduceLROnPlateau"
LINK = "https://github.com/frankkramer-lab/MIScnn/pull/71"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 300
FIRST_FOLD_STEPS = 1200
FOLDS = 5
VAL_EVERY = 25


def reinitialise(model):
    for layer in model.modules():
        if isinstance(layer, torch.nn.Linear):
            layer.reset_parameters()


def train_fold(model, optimizer, scheduler, x, y, fold, steps, seed, mon=None):
    train, val = fold
    for number, (xb, yb) in enumerate(batches(x[train], y[train], steps, seed=seed), 1):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        val_loss = None
        if number % VAL_EVERY == 0:
            val_loss = held_out_loss(model, x[val], y[val])
            scheduler.step(val_loss)
        if mon is not None:
            mon.step(loss, **({} if val_loss is None else {"val_loss": val_loss}))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    splits = fold_splits(len(x), FOLDS)
    model = mlp()

    def fresh_optimizer():
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        return optimizer, torch.optim.lr_scheduler.ReduceLROnPlateau(
            optimizer, factor=0.1, patience=1)

    # BUG when not fixed: one optimizer and one scheduler for every fold
    optimizer, scheduler = fresh_optimizer()
    train_fold(model, optimizer, scheduler, x, y, splits[0], FIRST_FOLD_STEPS, seed=1)
    reinitialise(model)                        # the weights do start again for fold 2
    if fixed:
        optimizer, scheduler = fresh_optimizer()
    with nd.watch(model, optimizer, **watch) as mon:
        train_fold(model, optimizer, scheduler, x, y, splits[1], steps, seed=2, mon=mon)
    return mon
