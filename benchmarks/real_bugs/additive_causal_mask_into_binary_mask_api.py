"""A hand-written GPT whose model builds its causal mask in the additive layout (0 where a
key may be seen, -inf above the diagonal) and hands it to an attention function that
expects the binary layout (1 = may be seen, 0 = hidden) and applies it as
``scores + (1 - mask) * -1e9``. Every key that may be seen gets -1e9 added (1 - 0 = 1),
every future key gets -inf: the causal order survives, but in float32 a score of a few
units added to -1e9 is lost to rounding, so every query spreads its attention evenly over
all the keys before it. Attention selects nothing; the model is an average of the past.

Reported: "fix(tinytorch): fix GPT causal mask convention in module 13" -
https://github.com/harvard-edge/cs249r_book/pull/1785 (the GPT's mask was "an additive
-inf mask ... but ``_apply_mask`` ... expects a binary lower-triangular mask"; "every
allowed position (value 0) received ... -1e9 ... blocking all attention including valid
past/present positions"; merged). Here a 2-block character GPT on 32 characters of the
sonnets. Fix: ``torch.tril(torch.ones(L, L))``, the layout the attention function reads.

Measured (200 steps, seed 0; mean of the last 20 training losses): bug 2.40, fixed 2.26.
Named by ATTENTION_UNIFORM (monitor/uniform_attention.py: every query row that sees two
keys or more weighs them exactly equally, on each step observed).
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "fix(tinytorch): fix GPT causal mask convention in module 13"
LINK = "https://github.com/harvard-edge/cs249r_book/pull/1785"
EXPECTED = ("ATTENTION_UNIFORM",)
STEPS = 200
LENGTH = 32
MASK_VALUE = -1e9


def apply_binary_mask(scores, mask):
    """The attention function's contract: ``mask`` is 1 where a key may be seen, 0 where not."""
    return scores + (1 - mask) * MASK_VALUE


def causal_mask(length, binary):
    if binary:
        return torch.tril(torch.ones(length, length))
    # BUG: the additive layout, handed to a function that reads the binary one
    return torch.triu(torch.full((length, length), float("-inf")), diagonal=1)


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def attend(self, x, mask):
        B, L, E = x.shape
        q, k, v = (t.view(B, L, self.heads, -1).transpose(1, 2)
                   for t in self.qkv(x).chunk(3, dim=-1))
        scores = apply_binary_mask(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), mask)
        y = scores.softmax(-1) @ v
        return self.out(y.transpose(1, 2).reshape(B, L, E))

    def forward(self, x, mask):
        x = x + self.attend(self.norm1(x), mask)
        return x + self.mlp(self.norm2(x))


class CharGPT(nn.Module):
    def __init__(self, vocab, binary_mask, dim=32):
        super().__init__()
        self.binary_mask = binary_mask
        self.embed, self.position = nn.Embedding(vocab, dim), nn.Embedding(LENGTH, dim)
        self.blocks = nn.ModuleList([Block(dim, 2) for _ in range(2)])
        self.norm, self.head = nn.LayerNorm(dim), nn.Linear(dim, vocab)

    def forward(self, ids):
        length = ids.shape[1]
        x = self.embed(ids) + self.position(torch.arange(length))
        mask = causal_mask(length, self.binary_mask)
        for block in self.blocks:
            x = block(x, mask)
        return self.head(self.norm(x))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharGPT(vocab, binary_mask=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, LENGTH), **watch)
