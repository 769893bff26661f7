"""A DNA CNN written for channels-first one-hot input, (batch, 4, length), fed the
(batch, length, 4) matrix: the first Conv1d takes the sequence positions as its channels and
slides its kernel along the 4 bases. Nothing crashes (in_channels was set to the length), but
the "convolution" is now a position-specific linear map over the whole sequence: no filter is
shared across positions, so a motif learned at one offset is not recognised at another.

Reported: "how to support DNA one-hot coding?" - https://github.com/kundajelab/fastISM/issues/5
(the model's input is (None, 4, 3001) into a channels-last Conv1D: its summary shows conv1_1
with output (None, 4, 64) and 768,320 parameters - 3001 input channels times a kernel over
the 4 bases - and max pooling leaves (None, 1, 64); the maintainer asked for inputs of
batch_size x sequence_length x 4). Here 80-base sequences, positives carry a 7-base motif at
a random offset, 600 training sequences, Conv1d -> ReLU -> global max -> Linear under Adam.
Fix: hand the layer (batch, 4, length) - x.transpose(1, 2) - with in_channels=4.

Measured (held-out accuracy on 1000 new sequences, chance 0.5; 300 Adam steps, batch 32):
seed 0, 0.49 vs 0.96; seeds + 1000: 0.51 vs 0.97.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._geno import binary_accuracy, index_batches, motif_ids, one_hot, \
    plant, random_ids

TITLE = "how to support DNA one-hot coding?"
LINK = "https://github.com/kundajelab/fastISM/issues/5"
EXPECTED = ("LAYOUT_NOT_TRANSPOSED",)
STEPS = 300
LENGTH = 80
MOTIF = motif_ids("TGACTCA")


def sequences(n, rng):
    """(one-hot (n, LENGTH, 4) - the stored, channels-last layout -, labels (n,))."""
    ids = random_ids(n, LENGTH, rng)
    y = rng.integers(0, 2, n)
    plant(ids, np.flatnonzero(y == 1), MOTIF, rng)
    return one_hot(ids).transpose(1, 2).contiguous(), torch.from_numpy(y).float()


class Scanner(nn.Module):
    def __init__(self, in_channels, kernel):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, 32, kernel, padding=kernel // 2)
        self.head = nn.Linear(32, 1)

    def forward(self, x):
        return self.head(torch.relu(self.conv(x)).amax(dim=-1)).squeeze(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = sequences(600, rng)
    test_x, test_y = sequences(1000, rng)
    if fixed:
        x, test_x = x.transpose(1, 2), test_x.transpose(1, 2)   # (batch, 4, length)
        model = Scanner(4, 9)
    else:   # BUG: (batch, length, 4) into Conv1d: positions are channels, bases the axis
        model = Scanner(LENGTH, 3)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.BCEWithLogitsLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in index_batches(len(x), steps):
            optimizer.zero_grad()
            loss = loss_fn(model(x[rows]), y[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = binary_accuracy(model, test_x, test_y)
    return mon
