"""Fine-tuning a DNA CNN whose filters were trained on one-hot rows in the order A, G, C, T
with new sequences one-hot encoded A, C, G, T: the C and G channels are swapped, so every
pretrained filter reads its motif with C and G exchanged, and the fine-tuning has to relearn
the motifs from the small new set instead of adapting them.

Reported: "One hot matrix" - https://github.com/uci-cbcl/DanQ/issues/6 (the paper's figure
draws the one-hot rows as A, C, G, T but its methods section says A, G, C, T; the author: "The
DeepSEA authors made the data with the order A,G,C,T, which is the right way to read the
matrix"). Here a motif CNN pretrained (before watching) on 2000 A,G,C,T-encoded sequences
for a GC-rich 8-base motif, then fine-tuned at a small rate on 200 new sequences of a second
cohort carrying the same motif. Fix: encode the new sequences in the pretrained order (rows
A, G, C, T).

Measured (held-out accuracy on 1000 new sequences, encoded like the fine-tuning set, chance
0.5; 150 Adam steps at 3e-4, batch 32): seed 0, 0.54 vs 0.98; seeds + 1000: 0.56 vs 0.97.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._geno import MotifCNN, binary_accuracy, index_batches, \
    motif_ids, one_hot, plant, random_ids

TITLE = "One hot matrix"
LINK = "https://github.com/uci-cbcl/DanQ/issues/6"
EXPECTED = ("INPUT_CHANNELS_REORDERED",)
STEPS = 150
LENGTH = 80
MOTIF = motif_ids("GCCGAGGC")
AGCT = [0, 2, 1, 3]      # rows of the A, C, G, T one-hot in the order A, G, C, T


def sequences(n, rng, order):
    """(one-hot (n, 4, LENGTH) with its rows in ``order``, labels (n,))."""
    ids = random_ids(n, LENGTH, rng)
    y = rng.integers(0, 2, n)
    plant(ids, np.flatnonzero(y == 1), MOTIF, rng)
    return one_hot(ids)[:, order], torch.from_numpy(y).float()


def pretrained(rng):
    """The published model: trained on A, G, C, T rows (not watched)."""
    x, y = sequences(2000, rng, AGCT)
    model = MotifCNN(filters=16, kernel=8)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.BCEWithLogitsLoss()
    for rows in index_batches(len(x), 200, seed=1):
        optimizer.zero_grad()
        loss_fn(model(x[rows]).squeeze(-1), y[rows]).backward()
        optimizer.step()
    return model


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = pretrained(rng)
    order = AGCT if fixed else [0, 1, 2, 3]    # BUG when not fixed: A, C, G, T rows
    x, y = sequences(200, rng, order)
    test_x, test_y = sequences(1000, rng, order)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    loss_fn = nn.BCEWithLogitsLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in index_batches(len(x), steps):
            optimizer.zero_grad()
            loss = loss_fn(model(x[rows]).squeeze(-1), y[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = binary_accuracy(model, test_x, test_y)
    return mon
