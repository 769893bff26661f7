"""A transformer block whose attention residual reads ``x = x + x`` after the attention
output was assigned to ``x``: the block's input is dropped and the attention output is only
doubled. Each position's own embedding now reaches the head only through attention, and
the stream is scaled by two at every block.

Reported: "[BUG] residual connection wrong?" - https://github.com/kyegomez/BitNet/issues/32
("x, _ = attn(x, x, x, is_causal=True); x = x + x ... Is the line x = x + x wrong? This
seems not a residual connection."; the author: "fixed it now excuse me, thanks for the
catch!"). Here two such blocks in a causal character model of the sonnets. Fix: keep the
block's input, ``y, _ = attn(x, x, x); x = y + x``.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "[BUG] residual connection wrong?"
LINK = "https://github.com/kyegomez/BitNet/issues/32"
EXPECTED = ("RESIDUAL_BYPASSED",)
STEPS = 120
LENGTH = 32


class Block(nn.Module):
    def __init__(self, dim, heads, fixed):
        super().__init__()
        self.fixed = fixed
        self.norm = nn.LayerNorm(dim)
        self.attention = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.feed = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 64), nn.GELU(),
                                  nn.Linear(64, dim))

    def forward(self, x, mask):
        h = self.norm(x)
        if self.fixed:
            y, _ = self.attention(h, h, h, attn_mask=mask, need_weights=False)
            x = y + x
        else:
            x, _ = self.attention(h, h, h, attn_mask=mask, need_weights=False)
            x = x + x            # BUG: the attention output doubled, the block's input lost
        return self.feed(x) + x


class CharTransformer(nn.Module):
    def __init__(self, vocab, fixed, dim=32, heads=2, blocks=2):
        super().__init__()
        self.dim = dim
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(LENGTH, dim)
        self.blocks = nn.ModuleList(Block(dim, heads, fixed) for _ in range(blocks))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        length = ids.shape[1]
        x = self.embed(ids) + self.position(torch.arange(length))
        mask = nn.Transformer.generate_square_subsequent_mask(length)
        for block in self.blocks:
            x = block(x, mask)
        return self.head(self.norm(x))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharTransformer(vocab, fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, LENGTH), **watch)
