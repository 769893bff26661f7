"""Strand augmentation that only reverses the sequences: each training sequence is added
again read backwards (seq[::-1]) instead of as its reverse complement, so the augmented copies
are not the other strand of anything - they teach the network the mirrored motif, which no
real sequence carries, and nothing about the motif read on the opposite strand.

Reported: "[ENH] augment_reverse() computes reverse but docstrings mentions `complement`
which should be updated." - https://github.com/gc-os-ai/pyaptamer/issues/335 (augment_reverse,
used to augment the aptamer training data, "only reverses the sequences without computing
the Watson-Crick complement", so "the augmented sequences are biologically meaningless
reversals rather than reverse complements"; fixed in a PR that complements before
reversing). Here a binding classifier: positives carry a 7-base motif, in the training set
mostly on the forward strand (85%), in the held-out set on either strand equally; 500
training sequences of 60 bases doubled by the augmentation, a motif CNN under Adam. Fix:
augment with the reverse complement (flip both the base and the position axes of the
A, C, G, T one-hot).

Measured (held-out accuracy on 1000 new sequences, chance 0.5; 300 Adam steps, batch 32):
seed 0, 0.77 vs 0.96; seeds + 1000: 0.78 vs 0.95.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._geno import MotifCNN, binary_accuracy, index_batches, \
    motif_ids, one_hot, random_ids, revcomp_ids

TITLE = ("[ENH] augment_reverse() computes reverse but docstrings mentions `complement` "
         "which should be updated.")
LINK = "https://github.com/gc-os-ai/pyaptamer/issues/335"
EXPECTED = ("INPUT_CHANNELS_REORDERED",)
STEPS = 300
LENGTH = 60
MOTIF = motif_ids("GAGCTTC")


def sequences(n, forward_share, rng):
    """(one-hot (n, 4, LENGTH), labels (n,)): positives carry the motif, on the forward
    strand with probability ``forward_share``, else its reverse complement."""
    ids = random_ids(n, LENGTH, rng)
    y = rng.integers(0, 2, n)
    for r in np.flatnonzero(y == 1):
        motif = MOTIF if rng.random() < forward_share else revcomp_ids(MOTIF)
        start = rng.integers(0, LENGTH - len(MOTIF) + 1)
        ids[r, start:start + len(MOTIF)] = motif
    return one_hot(ids), torch.from_numpy(y).float()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = sequences(500, 0.85, rng)
    test_x, test_y = sequences(1000, 0.5, rng)
    if fixed:
        other = x.flip(1, 2)          # reverse complement: bases A<->T, C<->G, and positions
    else:
        other = x.flip(2)             # BUG: positions reversed, bases left as they are
    x, y = torch.cat([x, other]), torch.cat([y, y])
    model = MotifCNN(filters=16, kernel=8)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
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
