"""A validation split stratified on a multi-label matrix with a splitter written for one
label per row: it groups the CELLS of the matrix by value (0 or 1) and takes, for each
value, the row index of every cell holding it. A row with both 0s and 1s is listed under
both values, so the same rows land in the training and the validation part (and several
times in each): the validation loss is measured largely on rows the model trains on, and
reads better than the model is.

Reported: "StratifiedShuffleSplit generates overlapping train and test indices for
multilabel data" - https://github.com/scikit-learn/scikit-learn/issues/9037 (with a label
matrix y, scikit-learn 0.18.1's StratifiedShuffleSplit returns "train and test indices
which overlap ... without any warning or error message"; the maintainer: "Looks like a
bug. For reference, the returned split here is train_idx=[3, 1]; test_idx=[3, 2]"; fixed
by stratifying on each row's label combination, #9044). Here the splitter as 0.18.1 wrote
it (``np.unique`` and ``np.where`` on the 2-D y), on collages of 2x2 digit cells tagged
with the digits they show (10 labels), an MLP tagger reporting its validation loss every
epoch. Fix: stratify on one id per row (its label combination), as scikit-learn does now.

Measured (600 steps, 1,000 collages split 80/20; 600 collages drawn from digit images
never used in training): the bug's split puts 99 of its 184 distinct validation rows in
the training part too (and trains on 563 distinct rows, not 800); its validation reads
loss 0.198, micro-F1 0.85 while the held-out collages score 0.305 and 0.72. The fixed
twin's validation reads 0.195 / 0.81 against 0.277 / 0.73 held out (its validation
collages share digit images with the training ones, hence some optimism too): the bug
both widens the gap and trains a worse model.

Named as VALIDATION_ROWS_IN_TRAINING as it came.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._digit_collages import collages, digits_present, micro_f1

TITLE = ("StratifiedShuffleSplit generates overlapping train and test indices for "
         "multilabel data")
LINK = "https://github.com/scikit-learn/scikit-learn/issues/9037"
EXPECTED = ("VALIDATION_ROWS_IN_TRAINING",)
STEPS = 600
GRID, FILL = 2, 0.5
TEST_SIZE = 0.2


def approximate_mode(counts, total):
    """Integer draws per group proportional to ``counts`` summing to ``total`` (largest
    remainders first)."""
    exact = counts / counts.sum() * total
    drawn = np.floor(exact).astype(int)
    for i in np.argsort(exact - drawn)[::-1][:total - drawn.sum()]:
        drawn[i] += 1
    return drawn


def stratified_shuffle_split(y, test_size, rng):
    """(train, test) row indices: scikit-learn 0.18.1's StratifiedShuffleSplit, one split."""
    n_samples = y.shape[0]
    n_test = int(np.ceil(test_size * n_samples))
    n_train = n_samples - n_test
    classes, y_indices = np.unique(y, return_inverse=True)   # on a 2-D y: the cells' values
    class_counts = np.bincount(y_indices.ravel())
    n_i = approximate_mode(class_counts, n_train)
    t_i = approximate_mode(class_counts - n_i, n_test)
    train, test = [], []
    for i, value in enumerate(classes):
        permutation = rng.permutation(class_counts[i])
        rows = np.where(y == value)[0][permutation]      # every cell's ROW: rows repeat
        train.extend(rows[:n_i[i]])
        test.extend(rows[n_i[i]:n_i[i] + t_i[i]])
    return rng.permutation(train), rng.permutation(test)


def split(y, fixed, rng):
    if fixed:       # the fix: one stratum id per row (its label combination)
        _, combination = np.unique(y, axis=0, return_inverse=True)
        return stratified_shuffle_split(combination.reshape(-1), TEST_SIZE, rng)
    return stratified_shuffle_split(y, TEST_SIZE, rng)   # BUG: the label matrix itself


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x_all, cells = collages(1000, grid=GRID, fill=FILL)
    y_all = digits_present(cells)
    train, val = (torch.from_numpy(np.asarray(part)) for part in split(y_all.numpy(), fixed, rng))
    x, y, x_val, y_val = x_all[train], y_all[train], x_all[val], y_all[val]
    per_epoch = len(train) // 64
    model = torch.nn.Sequential(torch.nn.Linear(64 * GRID * GRID, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (xb, yb) in enumerate(batches(x, y, steps), 1):
            optimizer.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % per_epoch == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = F.binary_cross_entropy_with_logits(model(x_val), y_val)
                model.train()
            mon.step(loss, val_loss=val_loss)
    x_test, cells_test = collages(600, grid=GRID, fill=FILL, held_out=True)
    y_test = digits_present(cells_test)
    with torch.no_grad():
        mon.val_loss = round(float(F.binary_cross_entropy_with_logits(model(x_val), y_val)), 3)
        mon.val_f1 = round(micro_f1(model(x_val), y_val, 0.0), 3)
        mon.test_loss = round(float(F.binary_cross_entropy_with_logits(model(x_test), y_test)), 3)
        mon.test_f1 = round(micro_f1(model(x_test), y_test, 0.0), 3)
    mon.train_rows, mon.val_rows = len(set(train.tolist())), len(set(val.tolist()))
    mon.overlap = len(set(train.tolist()) & set(val.tolist()))
    return mon
