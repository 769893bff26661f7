"""A causal language model whose hand-written attention adds its causal mask to the scores
in the boolean layout, 1 where a key may be seen and 0 where it may not
(``scores + torch.tril(ones)``), where an additive mask must be 0 and -inf. Future keys get
+0 instead of -inf: nothing is hidden, every position reads the character it is trained to
predict, and the training loss falls far below what the text allows.

Reported: "[BUG] Attention mask in example is incorrect" -
https://github.com/HKUSTDial/flash-sparse-attention/issues/146 (the flex-attention forward
"seems to use the wrong mask format (1,0) instead of (0,-inf) for addition mask in
FlexAttention's score_mod"; the maintainer: "My bad ... I forgot to update the example
modeling"). Here a 2-block decoder on 32 characters of the sonnets.
Fix: ``scores.masked_fill(~allowed, float("-inf"))`` (or add ``0 / -inf``).
Measured (300 steps, seed 0; mean of the last 20 training losses): bug 1.60, fixed 2.11 -
the bug's loss is below what the text allows because it reads the answer.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "[BUG] Attention mask in example is incorrect"
LINK = "https://github.com/HKUSTDial/flash-sparse-attention/issues/146"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 300
LENGTH = 32


class Block(nn.Module):
    def __init__(self, dim, heads, additive_zero_one):
        super().__init__()
        self.heads, self.additive_zero_one = heads, additive_zero_one
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def attend(self, x):
        B, L, E = x.shape
        q, k, v = (t.view(B, L, self.heads, -1).transpose(1, 2)
                   for t in self.qkv(x).chunk(3, dim=-1))
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.tril(torch.ones(L, L))
        if self.additive_zero_one:
            scores = scores + allowed              # BUG: 1 / 0 added, future keys not hidden
        else:
            scores = scores.masked_fill(allowed == 0, float("-inf"))
        y = scores.softmax(-1) @ v
        return self.out(y.transpose(1, 2).reshape(B, L, E))

    def forward(self, x):
        x = x + self.attend(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class CharDecoder(nn.Module):
    def __init__(self, vocab, additive_zero_one, dim=32):
        super().__init__()
        self.embed, self.position = nn.Embedding(vocab, dim), nn.Embedding(LENGTH, dim)
        self.blocks = nn.Sequential(*[Block(dim, 2, additive_zero_one) for _ in range(2)])
        self.norm, self.head = nn.LayerNorm(dim), nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.embed(ids) + self.position(torch.arange(ids.shape[1]))
        return self.head(self.norm(self.blocks(x)))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharDecoder(vocab, additive_zero_one=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, LENGTH), **watch)
