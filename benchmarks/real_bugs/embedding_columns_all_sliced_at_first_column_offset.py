"""A table whose categorical fields arrive as precomputed embedding vectors (one text
encoder vector per field value), all the fields' vectors concatenated into one feature
tensor with their offsets; the encoder gives each field its own linear layer and slices
that field's vectors out of the tensor - but the loop never advances its start index, so
every field's layer reads the FIRST field's vectors. The second and third fields never
reach the model; training runs, the loss falls on what the first field and the numbers
explain.

Reported: "Fix offset in LinearEmbeddingEncoder" -
https://github.com/pyg-team/pytorch-frame/pull/455 ("The forward function does not
increment the start_idx variable, so only the first one is used correctly if multiple
embedding columns are present"; the maintainer: "Great catch!"). Here three embedding
columns (16, 10 and 24 distinct values, each value a fixed random 8-wide vector as a text
encoder would give it) whose values' effects drive a binary label, plus two numeric
columns; per-column Linear(8, 8) encoders, the encodings and the numbers into an MLP,
BCEWithLogitsLoss, Adam 0.01, batches of 64, a validation loss each epoch. Fix:
start_idx = end_idx after each column.

Measured harm (held-out accuracy on 1000 rows after 300 steps): 0.69 vs 0.89 with the
fix; seeds + 1000: 0.69 vs 0.90.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._tabular_embeddings import held_out_accuracy, mixed_table

TITLE = "Fix offset in LinearEmbeddingEncoder"
LINK = "https://github.com/pyg-team/pytorch-frame/pull/455"
EXPECTED = ("INPUT_FEATURES_DUPLICATED",)
STEPS = 300
LEVELS, TRAIN, HELD_OUT, WIDTH = (16, 10, 24), 3000, 1000, 8


class LinearEmbeddingEncoder(nn.Module):
    """One linear layer per embedding column, each applied to its column's slice."""

    def __init__(self, dims, out_channels=8, fixed=False):
        super().__init__()
        self.dims, self.fixed = dims, fixed
        self.linears = nn.ModuleList(nn.Linear(d, out_channels) for d in dims)

    def forward(self, feat):
        start_idx, out = 0, []
        for dim, linear in zip(self.dims, self.linears):
            end_idx = start_idx + dim
            out.append(linear(feat[:, start_idx:end_idx]))
            if self.fixed:
                start_idx = end_idx          # BUG when not fixed: never advanced
        return torch.cat(out, 1)


class Net(nn.Module):
    def __init__(self, dims, numbers, fixed=False):
        super().__init__()
        self.encoder = LinearEmbeddingEncoder(dims, fixed=fixed)
        self.mlp = nn.Sequential(nn.Linear(8 * len(dims) + numbers, 32), nn.ReLU(),
                                 nn.Linear(32, 1))

    def forward(self, feat, numbers):
        return self.mlp(torch.cat([self.encoder(feat), numbers], 1)).squeeze(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    codes, x, y = mixed_table(rng, TRAIN + HELD_OUT, LEVELS)
    vectors = [torch.randn(n, WIDTH) for n in LEVELS]      # the text encoder's outputs
    feat = torch.cat([table[codes[:, i]] for i, table in enumerate(vectors)], 1)
    model = Net([WIDTH] * len(LEVELS), x.shape[1], fixed=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.BCEWithLogitsLoss()
    held = slice(TRAIN, None)
    per_epoch = TRAIN // 64
    with nd.watch(model, optimizer, **watch) as mon:
        for step, index in enumerate(index_batches(TRAIN, steps, 64)):
            optimizer.zero_grad()
            loss = loss_fn(model(feat[index], x[index]), y[index])
            loss.backward()
            optimizer.step()
            val_loss = None
            if (step + 1) % per_epoch == 0:
                with torch.no_grad():
                    val_loss = loss_fn(model(feat[held], x[held]), y[held])
            mon.step(loss, val_loss=val_loss)
    mon.held_out_accuracy = held_out_accuracy(model, feat[held], x[held], y=y[held])
    return mon
