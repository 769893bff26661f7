"""The whole feature table - numeric columns and the label-encoded categorical columns
alike - goes through one MinMaxScaler before training; the categorical columns are then
cast back to integer indices for their nn.Embedding. A code k of n values became k/(n-1)
in [0, 1], and .long() truncates that to 0 for every category but the last: each
categorical column now says only "last category or not", every other category reads row
0 of its embedding. Nothing errors (0 and 1 are valid indices) and the loss falls.

Reported: "[BUG]:" - https://github.com/pycaret/pycaret/issues/3717 ("I have a dataset
with categorical and numerical variables. Pycaret classification setup function encodes
the categorical data correctly but when normalize= True, it applies normalization to
everything i.e. numerical and categorical features. It should not normalize the encoded
categorical features"). Here the same slip in a hand-written PyTorch pipeline: a table
drawn at random (three categorical columns of 16, 10 and 24 values whose effects drive a
binary label, two numeric columns), LabelEncoder codes, MinMaxScaler over all five
columns, the first three cast to long for per-column embeddings into an MLP,
BCEWithLogitsLoss, Adam 0.01, batches of 64, a validation loss each epoch. Fix: scale
the numeric columns only (a ColumnTransformer), the codes stay integers.

Measured harm (held-out accuracy on 1000 rows after 300 steps): 0.60 vs 0.92 with the
fix; seeds + 1000: 0.58 vs 0.90.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._tabular_embeddings import (EmbeddingMLP, held_out_accuracy,
                                                     mixed_table)

TITLE = "[BUG]:"
LINK = "https://github.com/pycaret/pycaret/issues/3717"
EXPECTED = ("CATEGORY_CODES_AS_ONE_NUMBER",)
STEPS = 300
LEVELS, TRAIN, HELD_OUT = (16, 10, 24), 3000, 1000


def min_max_scale(table, fitted_on):
    """What MinMaxScaler().fit(table[fitted_on]).transform(table) does, per column."""
    low, high = table[fitted_on].min(0), table[fitted_on].max(0)
    return (table - low) / (high - low)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    codes, numbers, y = mixed_table(rng, TRAIN + HELD_OUT, LEVELS)
    table = np.concatenate([codes.numpy(), numbers.numpy()], 1).astype(np.float64)
    k = len(LEVELS)
    train_rows = slice(0, TRAIN)
    if fixed:                     # the fix: only the numeric columns are scaled
        table[:, k:] = min_max_scale(table[:, k:], train_rows)
    else:                         # BUG: the label-encoded columns are scaled as well
        table = min_max_scale(table, train_rows)
    table = torch.tensor(table, dtype=torch.float32)
    ids, x = table[:, :k].long(), table[:, k:]
    model = EmbeddingMLP(LEVELS, x.shape[1])
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.BCEWithLogitsLoss()
    held = slice(TRAIN, None)
    per_epoch = TRAIN // 64
    with nd.watch(model, optimizer, **watch) as mon:
        for step, index in enumerate(index_batches(TRAIN, steps, 64)):
            optimizer.zero_grad()
            loss = loss_fn(model(ids[index], x[index]), y[index])
            loss.backward()
            optimizer.step()
            val_loss = None
            if (step + 1) % per_epoch == 0:
                with torch.no_grad():
                    val_loss = loss_fn(model(ids[held], x[held]), y[held])
            mon.step(loss, val_loss=val_loss)
    mon.held_out_accuracy = held_out_accuracy(model, ids[held], x[held], y=y[held])
    return mon
