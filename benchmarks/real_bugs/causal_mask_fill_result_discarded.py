"""A hand-written causal self-attention whose mask is applied with the out-of-place
``masked_fill``: the masked copy is returned and dropped, the scores keep their future
entries, and every position reads the characters it is trained to predict.

Reported: "zeroing out attention not working" -
https://github.com/lucidrains/flamingo-pytorch/issues/10 ("you are not using the inplace
version of the function ... so I think this line does not have an effect"; the author:
"thank you for catching this!"). Here a one-block character model on the sonnets with that
call on its causal mask. Harm (seed 0, 150 steps, 512 held-out windows): the training loss
reads 1.23 against 2.34 for the fixed twin, but scored as generation reads the text - each
next character from its prefix alone - the loss is 4.88 against 2.36.
How watch finds it: the dependency probe run on an early step changes one position of a
window at a time; the outputs before it move, so the output at a position reads the
characters after it (FUTURE_LEAK), though the targets are the next characters.
Fix: ``scores = scores.masked_fill(future, float("-inf"))`` (or ``masked_fill_``).
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "zeroing out attention not working"
LINK = "https://github.com/lucidrains/flamingo-pytorch/issues/10"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 150
LENGTH = 32


class CausalSelfAttention(nn.Module):
    def __init__(self, dim, heads, keep_masked_scores):
        super().__init__()
        self.heads, self.keep_masked_scores = heads, keep_masked_scores
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)

    def forward(self, x):
        B, L, E = x.shape
        q, k, v = (t.view(B, L, self.heads, -1).transpose(1, 2)
                   for t in self.qkv(x).chunk(3, dim=-1))
        scores = q @ k.transpose(-2, -1) / math.sqrt(E // self.heads)
        future = torch.triu(torch.ones(L, L, dtype=torch.bool), 1)
        if self.keep_masked_scores:
            scores = scores.masked_fill(future, float("-inf"))
        else:
            scores.masked_fill(future, float("-inf"))   # BUG: the masked copy is dropped
        y = scores.softmax(-1) @ v
        return self.out(y.transpose(1, 2).reshape(B, L, E))


class CharModel(nn.Module):
    def __init__(self, vocab, keep_masked_scores, dim=32):
        super().__init__()
        self.embed, self.position = nn.Embedding(vocab, dim), nn.Embedding(LENGTH, dim)
        self.attention = CausalSelfAttention(dim, 4, keep_masked_scores)
        self.mlp = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, dim))
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.embed(ids) + self.position(torch.arange(ids.shape[1]))
        x = x + self.attention(x)
        return self.head(x + self.mlp(x))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharModel(vocab, keep_masked_scores=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, LENGTH), **watch)
