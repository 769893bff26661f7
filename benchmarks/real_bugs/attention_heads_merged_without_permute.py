"""Multi-head attention whose heads are merged back with a bare ``reshape``: the per-head
output (batch, heads, length, dim) is reshaped to (batch, length, heads * dim) without
moving the heads axis back first, so each token's vector is stitched from neighbouring
positions of one head - in a causal model, from the positions after it.

Reported: "Fix several bugs, one critical" -
https://github.com/jsbaan/transformer-from-scratch/pull/6 ("a missing permute before a
reshape in multi-head attention ... PyTorch's row-major reshape mixes chunks from different
sequence positions into the same token's output embedding"; "why did the training test still
pass? Well, probably because the copy task is too easy"). Here a one-block character model
on the sonnets, causal mask included. Harm (seed 0, 150 steps, 512 held-out windows):
training loss 1.68 against 2.34 for the fixed twin, but each next character predicted from
its prefix alone (as generation reads the text) 2.71 against 2.36.
How watch finds it: the dependency probe sees outputs move when later positions change
(FUTURE_LEAK), made in the attention module; the forward graph's reshape of a tensor whose
axes were not moved back is named as well (RESHAPE_USED_AS_TRANSPOSE).
Fix: ``y.transpose(1, 2).reshape(B, L, E)``.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "Fix several bugs, one critical"
LINK = "https://github.com/jsbaan/transformer-from-scratch/pull/6"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 150
LENGTH = 32


class CausalSelfAttention(nn.Module):
    def __init__(self, dim, heads, heads_moved_back):
        super().__init__()
        self.heads, self.heads_moved_back = heads, heads_moved_back
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)

    def forward(self, x):
        B, L, E = x.shape
        q, k, v = (t.view(B, L, self.heads, -1).transpose(1, 2)
                   for t in self.qkv(x).chunk(3, dim=-1))
        scores = q @ k.transpose(-2, -1) / math.sqrt(E // self.heads)
        future = torch.triu(torch.ones(L, L, dtype=torch.bool), 1)
        y = scores.masked_fill(future, float("-inf")).softmax(-1) @ v   # (B, H, L, d)
        if self.heads_moved_back:
            y = y.transpose(1, 2)
        return self.out(y.reshape(B, L, E))  # BUG when heads were not moved back


class CharModel(nn.Module):
    def __init__(self, vocab, heads_moved_back, dim=32):
        super().__init__()
        self.embed, self.position = nn.Embedding(vocab, dim), nn.Embedding(LENGTH, dim)
        self.attention = CausalSelfAttention(dim, 4, heads_moved_back)
        self.mlp = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, dim))
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.embed(ids) + self.position(torch.arange(ids.shape[1]))
        x = x + self.attention(x)
        return self.head(x + self.mlp(x))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharModel(vocab, heads_moved_back=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, LENGTH), **watch)
