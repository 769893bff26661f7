"""A high-cardinality categorical column target-encoded with each training row's own label
inside its encoding: every category is replaced by the mean label of the training rows
in it, computed over ALL the training rows, the row being encoded included. With a few
rows per category the encoding is largely the row's own label (a category seen 4 times
encodes a positive row as at least 0.25 higher than a negative one), so on the training
rows the encoded column is a near-copy of the target and the network leans on it; on
held-out rows, whose labels were never part of the means, the column carries only the
category's real (weaker) signal, and the model that trusted it mispredicts. Training
loss and accuracy look excellent; nothing errors.

Reported: "potential data leakage in TargetEncoder" -
https://github.com/jeongyoonlee/Kaggler/issues/35 (Kaggler's TargetEncoder replaced each
category by the average target over the rows it was fitted on, so a model trained on the
encoded training rows sees its own target; the reporter: use K-fold, encoding each fold
with the means of the other folds; the maintainer agreed, showed the out-of-fold loop he
uses, and added cross-validated fitting to ``fit_transform``).
Here a synthetic table: 600 categories (about 5 training rows each) whose own effect
drives a binary label, plus 4 numeric features; 3000 training rows, 2000 held out. An
MLP reads the encoded column and the numbers; Adam 0.01, batches of 64, 20 epochs. Bug:
the training rows encoded with the means over all training rows; fix: out-of-fold
encoding (5 folds) for the training rows. The held-out rows are encoded with the means
over all training rows in both (unseen categories: the overall mean).

Measured (held-out accuracy): seed 0: 0.756 with the bug, 0.791 fixed; seeds shifted by
1000: 0.732 against 0.757 (training accuracy 0.864 / 0.847 with the bug against 0.808 /
0.776 fixed: the leak shows as a better fit to the training rows).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._tab152 import categorical_table

TITLE = "potential data leakage in TargetEncoder"
LINK = "https://github.com/jeongyoonlee/Kaggler/issues/35"
EXPECTED = ("TARGET_ENCODING_READS_OWN_LABEL", "TARGETS_IN_INPUTS")
LEVELS, TRAIN, HELD_OUT, FOLDS, BATCH = 600, 3000, 2000, 5, 64
STEPS = 20 * (TRAIN // BATCH)


def category_means(codes, labels, fallback):
    """Mean label per category code (categories without rows: ``fallback``)."""
    total = torch.zeros(LEVELS).index_add_(0, codes, labels)
    count = torch.zeros(LEVELS).index_add_(0, codes, torch.ones_like(labels))
    return torch.where(count > 0, total / count.clamp(min=1), torch.tensor(fallback))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    codes, x, y = categorical_table(rng, TRAIN + HELD_OUT, LEVELS, effect=1.5)
    c_train, c_held = codes[:TRAIN], codes[TRAIN:]
    y_train, y_held = y[:TRAIN], y[TRAIN:]
    prior = float(y_train.mean())
    full_means = category_means(c_train, y_train, prior)
    if fixed:        # the fix: each fold encoded with the other folds' means
        encoded = torch.empty(TRAIN)
        fold = torch.from_numpy(rng.permutation(TRAIN) % FOLDS)
        for k in range(FOLDS):
            rest = fold != k
            means = category_means(c_train[rest], y_train[rest], prior)
            encoded[~rest] = means[c_train[~rest]]
    else:            # BUG: every training row encoded with means that include its own label
        encoded = full_means[c_train]
    x_train = torch.cat([encoded[:, None], x[:TRAIN]], 1)
    x_held = torch.cat([full_means[c_held][:, None], x[TRAIN:]], 1)
    model = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.BCEWithLogitsLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, BATCH):
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[index]).squeeze(-1), y_train[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x_held).squeeze(-1) > 0
        mon.train_accuracy = float(((model(x_train).squeeze(-1) > 0) == (y_train > 0.5))
                                   .float().mean())
    mon.held_out_accuracy = float((predicted == (y_held > 0.5)).float().mean())
    return mon
