"""Masked self-attention whose softmax runs over the queries (dim=-2) instead of the keys
(dim=-1): each key's column is normalised over the queries that may see it, so the weight
a position gives an earlier one depends on the scores of the later positions: the future
leaks into every prediction and the training loss falls far below what the text allows.

Reported: "Strange model behavior when taking the softmax in the wrong dimension" -
https://github.com/karpathy/ng-video-lecture/issues/42 ("I accidentally changed the softmax
dimension to -2 instead of -1 and got incredibly low losses on both the training and
validation set. However, when generating from the model, I get very low-quality result").
Here a one-block character model on the sonnets with that head. Fix: `softmax(dim=-1)`.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "Strange model behavior when taking the softmax in the wrong dimension"
LINK = "https://github.com/karpathy/ng-video-lecture/issues/42"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 120
LENGTH = 32


class Head(nn.Module):
    def __init__(self, dim, softmax_dim):
        super().__init__()
        self.softmax_dim = softmax_dim
        self.query, self.key, self.value = (nn.Linear(dim, dim, bias=False) for _ in range(3))

    def forward(self, x):
        L = x.shape[1]
        scores = self.query(x) @ self.key(x).transpose(-2, -1) / math.sqrt(x.shape[-1])
        future = torch.triu(torch.ones(L, L, dtype=torch.bool), 1)
        weights = scores.masked_fill(future, float("-inf"))
        weights = weights.softmax(dim=self.softmax_dim)   # BUG when -2: over the queries
        return weights @ self.value(x)


class CharModel(nn.Module):
    def __init__(self, vocab, softmax_dim, dim=32):
        super().__init__()
        self.embed, self.position = nn.Embedding(vocab, dim), nn.Embedding(LENGTH, dim)
        self.head = Head(dim, softmax_dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, dim))
        self.out = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.embed(ids) + self.position(torch.arange(ids.shape[1]))
        x = x + self.head(x)
        return self.out(x + self.mlp(x))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharModel(vocab, softmax_dim=-1 if fixed else -2)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, LENGTH), **watch)
