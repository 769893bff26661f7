"""A Dataset whose __getitem__ ignores its index and draws a fresh random batch from a
generator seeded the same way on every call: every step trains on the very same batch, the
loss falls to near zero on it, and the model learns nothing else.

Reported: "[08-seq_classification.ipynb] Creation of the same batch element by Dataset
Generator." - https://github.com/Atcold/NYU-DLSP20/issues/851 ("the index variable is not
used. So, every batch generated is identical since seed is set ... we are training same
batch element over (1000/batch_size) iterations and across epochs"). Here the batches of
the digits are drawn by a Dataset that re-seeds its generator in __getitem__. Fix: draw
from one generator created once (or index the data with the index).

Why this stays info (issue #10): watch names the cause, DATA_ORDER_REPEATS, as info. A
warning for "one batch on every step of a long run, the loss near zero" would fire on
healthy runs that look exactly the same: the "overfit one batch" sanity check and
full-batch training on a small data set (tests/test_real_bug_rules_2.py). The records
cannot tell them apart, because watch does not know how large the data set is.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification, mlp, train_watched

TITLE = ("[08-seq_classification.ipynb] Creation of the same batch element by Dataset "
         "Generator.")
LINK = "https://github.com/Atcold/NYU-DLSP20/issues/851"
EXPECTED = ("DATA_ORDER_REPEATS",)
STEPS = 150
BATCH = 64


class RandomBatches(torch.utils.data.Dataset):
    """Each item is a whole random batch (as in the report's sequence generator)."""

    def __init__(self, x, y, steps, reseed_every_call):
        self.x, self.y, self.steps = x, y, steps
        self.reseed_every_call = reseed_every_call
        self.rng = np.random.default_rng(0)

    def __len__(self):
        return self.steps

    def __getitem__(self, index):                # BUG when reseeding: index unused and
        rng = np.random.default_rng(0) if self.reseed_every_call else self.rng  # same seed
        chosen = torch.from_numpy(rng.choice(len(self.x), BATCH, replace=False))
        return self.x[chosen], self.y[chosen]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    data = RandomBatches(x, y, steps, reseed_every_call=not fixed)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(),
                         (data[i] for i in range(len(data))), **watch)
