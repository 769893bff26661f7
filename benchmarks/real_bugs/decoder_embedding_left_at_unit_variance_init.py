"""A token embedding keeps torch.nn.Embedding's default N(0, 1) initialisation and is used
unscaled: its entries are about sqrt(dim) times larger than the weights around it, so the
same Adam step moves them sqrt(dim) times less relative to their size and the embedding
trains far slower than the rest of the model. The usual recipe initialises it with std
1/sqrt(dim) and multiplies the lookups by sqrt(dim): the same activations at the start, but
a table that learns at the rate of the other layers.

Reported: "Embedding scale" - https://github.com/espnet/espnet/issues/3454 ("Decoder
embedding does not train properly as it is initialzed with too large a variance (of 1).
Better to scale it by sqrt(dim) in the forward, and initialize it with
stddev=1/sqrt(dim)"; in the reporter's own recipe the decoder embedding changed by a
relative 0.08 from one epoch to the next while the other parameters changed by 0.5-1). Here
a bag-of-embeddings classifier of the batch-215 corpus (benchmarks/real_bugs/_emb.py),
64-dim embedding, Adam 1e-3. Fix: normal(0, dim ** -0.5) and lookups times sqrt(dim).

Measured harm (held-out cross-entropy, 1000 sentences, 4 classes): 0.101 vs 0.028 fixed at
seed 0 (accuracy 0.990 vs 1.000); seeds + 1000: 0.082 vs 0.030 (accuracy 0.995 vs 1.000).
"""
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._emb import VOCAB_WORDS, BagClassifier, accuracy, batches, corpus, encode

TITLE = "Embedding scale"
LINK = "https://github.com/espnet/espnet/issues/3454"
EXPECTED = ("INIT_SCALE_TOO_LARGE",)
STEPS = 200
DIM = 64


class ScaledBag(BagClassifier):
    def __init__(self, fixed):
        super().__init__(VOCAB_WORDS + 2, dim=DIM, padding_idx=0)
        self.scale = 1.0
        if fixed:
            nn.init.normal_(self.emb.weight, std=DIM ** -0.5)
            self.emb.weight.data[0].zero_()
            self.scale = math.sqrt(DIM)
        # BUG when not fixed: default N(0, 1) rows, used as they are

    def forward(self, ids):
        keep = (ids != 0).float().unsqueeze(-1)
        pooled = (self.emb(ids) * self.scale * keep).sum(1) / keep.sum(1).clamp(min=1)
        return self.head(pooled)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(int(torch.randint(10 ** 6, ())))
    train_ranks, train_y = corpus(2000, g)
    train_ids = encode(train_ranks)
    model = ScaledBag(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(train_ids, train_y, steps, g):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    test_ranks, test_y = corpus(1000, g)
    test_ids = encode(test_ranks)
    mon.heldout_accuracy = accuracy(model, test_ids, test_y)
    with torch.no_grad():
        mon.heldout_loss = round(loss_fn(model(test_ids), test_y).item(), 3)
    return mon
