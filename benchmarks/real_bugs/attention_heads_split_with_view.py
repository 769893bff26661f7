"""Masked self-attention whose heads are split with .view() instead of a transpose: a
(batch, length, heads, dim) tensor viewed as (batch, heads, length, dim) scrambles positions
and heads, so the causal mask no longer lines up with the time steps and positions read
later ones.

Reported: "In oder to change the order of dimensions, why is torch.tensor.view used??" -
https://github.com/zhouhaoyi/Informer2020/issues/59 (`queries.view(B, H, L_Q, -1)` on
queries shaped (B, L_Q, H, D): "Dose View function not break the relationship between
heads?"; the authors: "Thanks for your remind! We will fix this error immediately"). Here a
one-block character model on the sonnets with that attention, causal mask included. Fix:
`.transpose(1, 2)` (or permute) to move the heads axis.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "In oder to change the order of dimensions, why is torch.tensor.view used??"
LINK = "https://github.com/zhouhaoyi/Informer2020/issues/59"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 120
LENGTH = 32


class MaskedAttention(nn.Module):
    def __init__(self, dim, heads, split_with_view):
        super().__init__()
        self.heads, self.split_with_view = heads, split_with_view
        self.query, self.key = nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.value, self.out = nn.Linear(dim, dim), nn.Linear(dim, dim)

    def forward(self, x):
        B, L, E = x.shape
        H = self.heads
        q, k, v = (f(x).view(B, L, H, -1) for f in (self.query, self.key, self.value))
        if self.split_with_view:             # BUG: a view, not a transpose
            q, k, v = (t.view(B, H, L, -1) for t in (q, k, v))
        else:
            q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(E // H)
        future = torch.triu(torch.ones(L, L, dtype=torch.bool), 1)
        y = scores.masked_fill(future, float("-inf")).softmax(-1) @ v     # (B, H, L, d)
        return self.out(y.transpose(1, 2).reshape(B, L, E))


class CharModel(nn.Module):
    def __init__(self, vocab, split_with_view, dim=32):
        super().__init__()
        self.embed, self.position = nn.Embedding(vocab, dim), nn.Embedding(LENGTH, dim)
        self.attention = MaskedAttention(dim, 4, split_with_view)
        self.mlp = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, dim))
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.embed(ids) + self.position(torch.arange(ids.shape[1]))
        x = x + self.attention(x)
        return self.head(x + self.mlp(x))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharModel(vocab, split_with_view=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, LENGTH), **watch)
