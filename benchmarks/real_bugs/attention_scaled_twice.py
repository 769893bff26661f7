"""Self-attention that divides its queries by sqrt(head_dim) and then hands them to
``F.scaled_dot_product_attention``, which divides the scores by sqrt(head_dim) again: the
scores come out head_dim times smaller than scaled dot-product attention makes them, the
attention rows stay close to uniform, and the block mostly averages its context instead of
looking anything up (the weights must grow sqrt(head_dim)-fold to undo it).

Reported: "Attention scaling fixes" - https://github.com/AI-Hypercomputer/maxtext/pull/1349
("we supply a scaling factor of 1/sqrt(d) ... These lines initialize the Q weights to be
scaled down by that factor ... This would mean the QK product for GPU flash attention is
doubly scaled down, which can hurt performance"; and under Adam, unlike Adafactor, scaling
the initialiser is not the same as scaling the product). Here a one-block character model
on the sonnets, one head of 64. Fix: scale once: leave the queries alone and let the kernel
scale
(or pass ``scale=1.0`` to the kernel).
Measured (150 steps, seed 0; mean of the last 20 training losses, first 10 in brackets): bug
2.20 (3.55), fixed 2.12 (3.54).
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "Attention scaling fixes"
LINK = "https://github.com/AI-Hypercomputer/maxtext/pull/1349"
EXPECTED = ("ATTENTION_UNIFORM",)
STEPS = 150
LENGTH = 32


class Attention(nn.Module):
    def __init__(self, dim, heads, prescale_query):
        super().__init__()
        self.heads, self.head_dim, self.prescale_query = heads, dim // heads, prescale_query
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)

    def forward(self, x):
        B, L, E = x.shape
        q, k, v = (t.view(B, L, self.heads, -1).transpose(1, 2)
                   for t in self.qkv(x).chunk(3, dim=-1))
        if self.prescale_query:
            q = q / math.sqrt(self.head_dim)       # BUG: the kernel divides by sqrt(d) too
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(B, L, E))


class CharModel(nn.Module):
    def __init__(self, vocab, prescale_query, dim=64):
        super().__init__()
        self.embed, self.position = nn.Embedding(vocab, dim), nn.Embedding(LENGTH, dim)
        self.attention = Attention(dim, 1, prescale_query)
        self.mlp = nn.Sequential(nn.Linear(dim, 128), nn.ReLU(), nn.Linear(128, dim))
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.embed(ids) + self.position(torch.arange(ids.shape[1]))
        x = x + self.attention(x)
        return self.head(x + self.mlp(x))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharModel(vocab, prescale_query=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, LENGTH), **watch)
