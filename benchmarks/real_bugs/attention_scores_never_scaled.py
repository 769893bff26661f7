"""Hand-written causal self-attention that never divides its scores by sqrt(head_dim):
``softmax(q @ k.T)`` instead of ``softmax(q @ k.T / sqrt(d))``. With heads of 64 the scores
come out about 8 times wider than scaled dot-product attention makes them, the softmax rows
collapse onto one key, and the gradient through the attention weights nearly vanishes.

Reported: "Fix scaling in attention computation" -
https://github.com/PAIR-code/tiny-transformers/issues/71 ("Currently we are not dividing
the raw attention by the square root of dimension, when we should. It's possible that this
explains some of the losses peaks during training of tiny models"). Here a one-block
character model on the sonnets, one head of 64. Fix: ``scores / math.sqrt(head_dim)``.
Measured (150 steps, seed 0; mean of the last 20 training losses, first 10 in brackets): bug
2.27 (3.55), fixed 2.12 (3.54).
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "Fix scaling in attention computation"
LINK = "https://github.com/PAIR-code/tiny-transformers/issues/71"
EXPECTED = ("ATTENTION_SATURATED",)
STEPS = 150
LENGTH = 32


class Attention(nn.Module):
    def __init__(self, dim, heads, scaled):
        super().__init__()
        self.heads, self.scaled = heads, scaled
        self.head_dim = dim // heads
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)

    def forward(self, x):
        B, L, E = x.shape
        q, k, v = (t.view(B, L, self.heads, -1).transpose(1, 2)
                   for t in self.qkv(x).chunk(3, dim=-1))
        scores = q @ k.transpose(-2, -1)           # BUG: never divided by sqrt(head_dim)
        if self.scaled:
            scores = scores / math.sqrt(self.head_dim)
        future = torch.triu(torch.ones(L, L, dtype=torch.bool), 1)
        y = scores.masked_fill(future, float("-inf")).softmax(-1) @ v
        return self.out(y.transpose(1, 2).reshape(B, L, E))


class CharModel(nn.Module):
    def __init__(self, vocab, scaled, dim=64):
        super().__init__()
        self.embed, self.position = nn.Embedding(vocab, dim), nn.Embedding(LENGTH, dim)
        self.attention = Attention(dim, 1, scaled)
        self.mlp = nn.Sequential(nn.Linear(dim, 128), nn.ReLU(), nn.Linear(128, dim))
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.embed(ids) + self.position(torch.arange(ids.shape[1]))
        x = x + self.attention(x)
        return self.head(x + self.mlp(x))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharModel(vocab, scaled=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, LENGTH), **watch)
