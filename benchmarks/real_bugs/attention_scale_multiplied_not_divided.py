"""Masked self-attention that divides its scores by ``scale = head_dim ** -0.5`` instead of
multiplying by it: the scores are multiplied by sqrt(head_dim), head_dim times larger than
scaled dot-product attention makes them, so the softmax rows saturate to one key and the
gradient through the attention weights nearly vanishes.

Reported: "Bug in MultiHeadAttention" - https://github.com/esceptico/perceiver-io/issues/9
("`self.scale` should be multiplied instead of the divide, since it's defined as
`self.scale = self.qk_head_dim ** -0.5`"; the author: "Nice catch! Sorry for such a dumb
mistake. Will fix it today."). Here a one-block character model on the sonnets with that
attention, heads of 32. Fix: `q @ k.transpose(-2, -1) * self.scale`.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "Bug in MultiHeadAttention"
LINK = "https://github.com/esceptico/perceiver-io/issues/9"
EXPECTED = ("ATTENTION_SATURATED",)
STEPS = 120
LENGTH = 32


class Attention(nn.Module):
    def __init__(self, dim, heads, divide):
        super().__init__()
        self.heads, self.divide = heads, divide
        self.scale = (dim // heads) ** -0.5
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)

    def forward(self, x):
        B, L, E = x.shape
        q, k, v = (t.view(B, L, self.heads, -1).transpose(1, 2)
                   for t in self.qkv(x).chunk(3, dim=-1))
        scores = q @ k.transpose(-2, -1)
        scores = scores / self.scale if self.divide else scores * self.scale   # BUG: divide
        future = torch.triu(torch.ones(L, L, dtype=torch.bool), 1)
        y = scores.masked_fill(future, float("-inf")).softmax(-1) @ v
        return self.out(y.transpose(1, 2).reshape(B, L, E))


class CharModel(nn.Module):
    def __init__(self, vocab, divide, dim=64):
        super().__init__()
        self.embed, self.position = nn.Embedding(vocab, dim), nn.Embedding(LENGTH, dim)
        self.attention = Attention(dim, 2, divide)
        self.mlp = nn.Sequential(nn.Linear(dim, 128), nn.ReLU(), nn.Linear(128, dim))
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.embed(ids) + self.position(torch.arange(ids.shape[1]))
        x = x + self.attention(x)
        return self.head(x + self.mlp(x))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharModel(vocab, divide=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, LENGTH), **watch)
