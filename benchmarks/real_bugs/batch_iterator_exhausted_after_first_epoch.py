"""The training batches come from a one-shot iterator built once, before the epoch loop:
the first epoch reads it to the end, and every later ``for batch in train_iter`` finds it
empty and ends at once. The loop runs all its epochs without an error and trains on one.

Reported: "Bucket data loader from migration tutorial can only be iterated once" -
https://github.com/pytorch/text/issues/1282 ("if I try and iterate it twice ... the loop is
skipped over"; a maintainer: "all the datasets are now iterators. It should be very cheap
to initiate a new dataset object after epoch 1"). Here a digits MLP meant to train six
epochs of 25 batches over an iterator of shuffled batches built once. Fix: build the
iterator anew at the start of every epoch.

Why watch misses it: the later epochs make no forward, no backward, no optimizer step and
no ``mon.step``; the run watch sees is 25 healthy steps and a close, the same as a run meant
to be that short. Nothing between the empty epochs (no per-epoch scheduler step, validation
or log call) reaches the monitor to show that time went by without training.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification, mlp

TITLE = "Bucket data loader from migration tutorial can only be iterated once"
LINK = "https://github.com/pytorch/text/issues/1282"
EXPECTED = ("EPOCHS_WITHOUT_BATCHES",)
STEPS = 150
EPOCH = 25           # batches in one pass over the iterator
BATCH = 64


def batch_iterator(x, y, rng):
    """One pass of shuffled batches, as a generator: it can be read once."""
    order = torch.from_numpy(rng.permutation(len(x)))
    for start in range(0, EPOCH * BATCH, BATCH):
        index = order[start:start + BATCH]
        yield x[index], y[index]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    rng = np.random.default_rng(0)
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    train_iter = batch_iterator(x, y, rng)        # BUG: one pass, built once
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps // EPOCH):
            if fixed:
                train_iter = batch_iterator(x, y, rng)    # the fix: a new pass each epoch
            for xb, yb in train_iter:
                optimizer.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
    return mon
