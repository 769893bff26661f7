"""Each gene cluster is expanded into several overlapping context windows (the cluster with
different flanks), and the train/test split is then drawn over the window rows: windows of
one cluster land on both sides, so the test rows are near-copies of training rows and the
test accuracy measures recall of memorised clusters, not classification of new ones.

Reported: "Potential data leakage in classifier train/test split" -
https://github.com/HUST-NingKang-Lab/BGC-Prophet/issues/8 (every biosynthetic gene cluster
of the training table is expanded into 5 rows with different context windows, and
__train_test_split stratifies over rows, so "the 5 context windows of the same BGC ... can be
distributed across both the training and test sets"; the author: "Great catch! You are
absolutely right that the row-level split causes data leakage"). Here 160 clusters of 140
bases, 5 windows of 100 bases each (offsets 0-40), a cluster's class is whether a 6-base
motif sits in its core, with 25% of the cluster labels flipped (annotation noise), 20% held
out, a motif CNN under Adam. Fix: split the clusters, then expand them into windows.

Measured (400 Adam steps, batch 32; "new clusters": 200 clusters x 5 windows never seen,
their labels as noisy, so 0.75 is the best a network can score): seed 0, the bug's test
accuracy 1.00 against 0.60 on new clusters (overstated by 0.40), the fixed twin's 0.48
against 0.57; seeds + 1000: bug 0.98 against 0.72 (overstated by 0.26), twin 0.77 against
0.60. The harm is the
wrong test accuracy (what the split reports), not a worse network.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._geno import MotifCNN, binary_accuracy, index_batches, \
    motif_ids, one_hot, random_ids

TITLE = "Potential data leakage in classifier train/test split"
LINK = "https://github.com/HUST-NingKang-Lab/BGC-Prophet/issues/8"
EXPECTED = ("VALIDATION_ROWS_IN_TRAINING",)
STEPS = 400
CLUSTER, WINDOW, OFFSETS = 140, 100, (0, 10, 20, 30, 40)
MOTIF = motif_ids("CATGCA")
NOISE = 0.25


def clusters(n, rng):
    """(window one-hots (n * 5, 4, WINDOW), labels (n * 5,), cluster id per window)."""
    ids = random_ids(n, CLUSTER, rng)
    truth = rng.integers(0, 2, n)
    for r in np.flatnonzero(truth == 1):
        start = rng.integers(45, 95 - len(MOTIF))     # the core every window covers
        ids[r, start:start + len(MOTIF)] = MOTIF
    label = np.where(rng.random(n) < NOISE, 1 - truth, truth)
    windows = np.stack([ids[:, o:o + WINDOW] for o in OFFSETS], axis=1)   # (n, 5, WINDOW)
    x = one_hot(windows.reshape(-1, WINDOW))
    y = torch.from_numpy(np.repeat(label, len(OFFSETS))).float()
    group = np.repeat(np.arange(n), len(OFFSETS))
    return x, y, group


def split(group, fixed, rng):
    """(train rows, test rows): 20% of the window rows (bug) or of the clusters (fix)."""
    if fixed:
        names = rng.permutation(np.unique(group))
        held = np.isin(group, names[:len(names) // 5])
    else:   # BUG: rows are windows, and windows of one cluster fall on both sides
        held = np.zeros(len(group), bool)
        held[rng.permutation(len(group))[:len(group) // 5]] = True
    return torch.from_numpy(np.flatnonzero(~held)), torch.from_numpy(np.flatnonzero(held))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, group = clusters(160, rng)
    new_x, new_y, _ = clusters(200, rng)
    train, held = split(group, fixed, rng)
    model = MotifCNN(filters=64, kernel=10)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.BCEWithLogitsLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps):
            rows = train[index]
            optimizer.zero_grad()
            loss = loss_fn(model(x[rows]).squeeze(-1), y[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.test_accuracy = binary_accuracy(model, x[held], y[held])
    mon.new_cluster_accuracy = binary_accuracy(model, new_x, new_y)
    return mon
