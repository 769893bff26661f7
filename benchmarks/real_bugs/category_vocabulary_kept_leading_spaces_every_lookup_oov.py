"""The categorical vocabularies are built from the raw CSV columns, whose values keep the
leading space of the "value, value" file (" Private", " Male"), while the input pipeline
hands the lookup the stripped strings ("Private", "Male"): no string is in its vocabulary,
every row of every categorical column is looked up as the out-of-vocabulary index, and
all the embeddings the model reads are one row per column. Training runs and the loss
falls - on the numeric columns alone - while the categorical columns say nothing.

Reported: "Structured data learning with TabTransformer Tutorial Working on Colab, broken
on Local" - https://github.com/keras-team/keras-io/issues/1946 (the Keras TabTransformer
tutorial on the Adult census table; the maintainer's analysis: "Vocabulary whitespace
mismatch - make_csv_dataset ... strips leading/trailing whitespace from string feature
values (e.g. " Male" -> "Male"), but pandas preserves those spaces when building the
vocabulary. Every value becomes OOV"; fix: build the vocabulary with .str.strip(), and
give the lookup an OOV index, num_oov_indices=1). Here an Adult-like table drawn at random
(workclass, education, occupation with 16, 10 and 24 values whose effects drive the
income class, plus two numeric columns), the vocabularies read from the raw " value"
strings with index 0 kept for unknown values (num_oov_indices=1, so nothing crashes), one
embedding per column and an MLP, BCEWithLogitsLoss, Adam 0.01, batches of 64, a
validation loss each epoch. Fix: strip the vocabulary strings as the pipeline strips the
values.

Measured harm (held-out accuracy on 1000 rows after 300 steps): 0.57 vs 0.92 with the
fix; seeds + 1000: 0.58 vs 0.90 (every training and held-out lookup is the OOV index
with the bug).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._tabular_embeddings import (EmbeddingMLP, held_out_accuracy,
                                                     mixed_table)

TITLE = "Structured data learning with TabTransformer Tutorial Working on Colab, broken on Local"
LINK = "https://github.com/keras-team/keras-io/issues/1946"
EXPECTED = ("UNKNOWN_ID_DOMINATES_INPUTS",)
STEPS = 300
LEVELS, TRAIN, HELD_OUT = (16, 10, 24), 3000, 1000
COLUMNS = ("workclass", "education", "occupation")


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    codes, x, y = mixed_table(rng, TRAIN + HELD_OUT, LEVELS)
    # the CSV's strings: "<column>-<k>" written after the ", " separator
    raw = [np.array([f" {column}-{k}" for k in range(n)])
           for column, n in zip(COLUMNS, LEVELS)]
    parsed = [np.char.strip(names[codes[:, i].numpy()]) for i, names in enumerate(raw)]
    lookups = []
    for names in raw:
        vocabulary = sorted(set(np.char.strip(names)) if fixed else set(names))  # BUG: raw
        lookups.append({value: index + 1 for index, value in enumerate(vocabulary)})
    ids = torch.stack([torch.tensor([lookup.get(v, 0) for v in values])     # 0: OOV
                       for lookup, values in zip(lookups, parsed)], 1)
    model = EmbeddingMLP([n + 1 for n in LEVELS], x.shape[1])
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
    mon.oov_share = float((ids == 0).float().mean())
    return mon
