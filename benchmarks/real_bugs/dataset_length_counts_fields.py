"""A Dataset that keeps its samples as one list ``[images, labels]`` and returns the
length of that list from __len__: always 2. The DataLoader asks __len__ how many indices
there are, so every epoch is one batch of the first two samples, and the rest of the data
is never read.

Reported: "Length of data samples wrongly calculated" -
https://github.com/xavysp/DexiNed/issues/98 ("the length of the dataset is being
calculated not over all images in the dataset but over the array [[images],[labels]] and
therefore always returns the number 2 ... when there are more than 2 images in the data
folder, only the first 2 were being processed"; the maintainer: "I also have noticed that
error"). Here the same Dataset, as a training set of 1000 digits, read with
``DataLoader(batch_size=64, shuffle=True)``. Fix: ``len(self.data_index[0])``.

Measured: held-out accuracy 0.18 against the fixed twin's 0.89 after 150 steps (the
bug's training loss 0.03: two digits learned by heart).

Why watch misses it: every step trains on the same two digits, in one of their two
orders at random. Full-batch training of a tiny set with ``shuffle=True`` looks exactly the
same, and watch does not know how large the data set is (the same reason as
same_batch_every_step). As it came, DATA_ORDER_REPEATS named it as info, but for the wrong
reason: the two orders lined up by chance on the sparse steps it compares ("38 batches per
epoch, the loader does not reshuffle"); an epoch visits each batch once, and a "period"
holding one batch twice is no longer taken for one.
"""
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

import nndebug as nd
from benchmarks.real_bugs._common import classification, mlp

TITLE = "Length of data samples wrongly calculated"
LINK = "https://github.com/xavysp/DexiNed/issues/98"
EXPECTED = ("DATA_ORDER_REPEATS",)
STEPS = 150
BATCH = 64
TRAIN = 1000


class PairedDigits(Dataset):
    """Images and labels kept side by side, as the report's ``data_index``."""

    def __init__(self, images, labels, count_samples):
        self.data_index = [images, labels]
        self.count_samples = count_samples

    def __len__(self):
        if self.count_samples:                   # the fix
            return len(self.data_index[0])
        return len(self.data_index)              # BUG: 2, the number of fields

    def __getitem__(self, index):
        return self.data_index[0][index], self.data_index[1][index]


def shuffled_digits():
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(1).permutation(len(x)))
    return x[order], y[order]


def held_out():
    x, y = shuffled_digits()
    return x[TRAIN:], y[TRAIN:]


def train(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = shuffled_digits()
    data = PairedDigits(x[:TRAIN], y[:TRAIN], count_samples=fixed)
    loader = DataLoader(data, batch_size=BATCH, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    done = 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            for xb, yb in loader:
                optimizer.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
                if done == steps:
                    break
    return mon, model


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]
