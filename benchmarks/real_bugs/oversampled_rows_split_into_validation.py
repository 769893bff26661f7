"""A rare source oversampled by repeating its rows BEFORE the validation split: the copies
fall on both sides, so most validation rows of the rare source are rows the model trains
on. The validation score measures memorisation, and reads better than the model is.

Reported: "Validation split can overlap training data after interleave oversampling" -
https://github.com/MakazhanAlpamys/Soup/issues/680 (the smaller source is cycled up to the
larger one's size and the validation set is then cut from the combined rows: "Every
validation row is in the training set. Validation loss on the oversampled source is
measuring memorisation, and it will look *good* - which is the worst direction for a
silent defect, because a suspiciously low val loss reads as success."). Here the digits 0-4
are the large source (all their rows) and 5-9 the rare one (10 rows a class), repeated to
the large source's size, shuffled, and cut 80/20 into training and validation; an MLP
reports its validation loss every epoch. Fix: split each source first, then oversample the
training part only.

Measured (500 steps, on the rare digits; 297 digits drawn at random are held out from
everything): the bug's validation loss is 0.10 and accuracy 1.00 while the held-out
digits score 0.38 and 0.91 (0.08/1.00 against 0.30/0.93, and 0.07/1.00 against
0.45/0.85, with the seeds shifted by 1000 and 2000). The fixed twin's validation rows are
few (two a class) and noisy, but not biased: 0.11, 0.45, 0.74 against held-out 0.40,
0.36, 0.50.

Named as VALIDATION_ROWS_IN_TRAINING (a quarter of the distinct validation rows equal a
training row value for value); missed as it came.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Validation split can overlap training data after interleave oversampling"
LINK = "https://github.com/MakazhanAlpamys/Soup/issues/680"
EXPECTED = ("VALIDATION_ROWS_IN_TRAINING",)
STEPS = 500
HELD_OUT = 297
RARE_PER_CLASS = 10
VALIDATION_SHARE = 0.2


def sources(y, rng):
    """The large source (digits 0-4, every row) and the rare one (25 rows of each 5-9)."""
    large = np.flatnonzero(y.numpy() < 5)
    rare = np.concatenate([rng.permutation(np.flatnonzero(y.numpy() == c))[:RARE_PER_CLASS]
                           for c in range(5, 10)])
    return large, rare


def oversampled(rare, size):
    """The rare rows repeated (cycled) up to ``size`` rows."""
    return np.resize(rare, size)


def cut(rows, rng):
    rows = rng.permutation(rows)
    n_val = int(len(rows) * VALIDATION_SHARE)
    return rows[n_val:], rows[:n_val]


def splits(y, rng, fixed):
    large, rare = sources(y, rng)
    if not fixed:   # BUG: oversample first, then cut the validation rows from the copies
        return cut(np.concatenate([large, oversampled(rare, len(large))]), rng)
    large_train, large_val = cut(large, rng)
    rare_train, rare_val = cut(rare, rng)
    return (np.concatenate([large_train, oversampled(rare_train, len(large_train))]),
            np.concatenate([large_val, rare_val]))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x_all, y_all = classification()
    order = torch.from_numpy(rng.permutation(len(x_all)))
    x_test, y_test = x_all[order[:HELD_OUT]], y_all[order[:HELD_OUT]]
    x, y = x_all[order[HELD_OUT:]], y_all[order[HELD_OUT:]]
    train, val = splits(y, rng, fixed)
    x_train, y_train = x[train], y[train]
    x_val, y_val = x[val], y[val]
    per_epoch = len(train) // 64
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (xb, yb) in enumerate(batches(x_train, y_train, steps), 1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % per_epoch == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = F.cross_entropy(model(x_val), y_val)
                model.train()
            mon.step(loss, val_loss=val_loss)
    mon.val_loss, mon.val_accuracy = rare_scores(model, x_val, y_val)
    mon.test_loss, mon.accuracy = rare_scores(model, x_test, y_test)
    return mon


def rare_scores(model, x, y):
    """Loss and accuracy on the rare source's digits (5-9) among ``x``."""
    rare = y >= 5
    with torch.no_grad():
        logits = model(x[rare])
    return (round(float(F.cross_entropy(logits, y[rare])), 3),
            round(float((logits.argmax(1) == y[rare]).float().mean()), 3))
