"""A hand-written attention encoder whose padding mask is unsqueezed on the wrong axes:
``(ids != pad).unsqueeze(1).unsqueeze(3)`` has shape (batch, 1, length, 1), so it masks the
padded *queries* (whole rows of the score matrix) instead of the padded *keys* (columns).
Every real token still attends to the padding, and a line's features change with how much
padding its batch happened to give it.

Reported: "fix(model): attention pad mask" -
https://github.com/hyunwoongko/transformer/pull/40 ("with `.unsqueeze(1).unsqueeze(3)` will
got wrong broadcast result. Currently, the code works despite this bug because we are using
`-10000` rather than `-inf`"); the same slip is confirmed in
lucidrains/x-transformers#172 ("if you find `mask = rearrange(mask, 'b i -> b 1 i 1')` in
the code, it is likely an error"). Here stretches of 8 to 40 characters of the sonnets,
padded per batch with id 0 to the batch's longest + 2, labelled by whether more than a tenth
of their characters are the letter e, mean-pooled over the real tokens. Harm (seed 0, 150
steps, 2,048 held-out stretches): accuracy 0.93 padded to the longest held-out stretch, 0.91
with 16 more pads and 0.84 with 40 more, predicted probabilities moving by up to 0.76 (the
fixed twin: 0.93 at every padding, not one probability moved).
How watch finds it: the dependency probe changes only what the padded positions hold
(the embedding's output at padding_idx) and the real positions' outputs move (PADDING_LEAK).
Fix: ``(ids != pad).unsqueeze(1).unsqueeze(2)`` - shape (batch, 1, 1, length), over keys.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import SONNETS, characters, train_watched

TITLE = "fix(model): attention pad mask"
LINK = "https://github.com/hyunwoongko/transformer/pull/40"
EXPECTED = ("PADDING_LEAK",)
STEPS = 150


class PaddedSelfAttention(nn.Module):
    def __init__(self, dim, heads, mask_over_keys):
        super().__init__()
        self.heads, self.mask_over_keys = heads, mask_over_keys
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)

    def forward(self, x, real):
        B, L, E = x.shape
        q, k, v = (t.view(B, L, self.heads, -1).transpose(1, 2)
                   for t in self.qkv(x).chunk(3, dim=-1))
        scores = q @ k.transpose(-2, -1) / math.sqrt(E // self.heads)
        if self.mask_over_keys:
            keep = real.unsqueeze(1).unsqueeze(2)       # (B, 1, 1, L): a column per key
        else:
            keep = real.unsqueeze(1).unsqueeze(3)       # BUG: (B, 1, L, 1), a row per query
        y = scores.masked_fill(~keep, -10000.0).softmax(-1) @ v
        return self.out(y.transpose(1, 2).reshape(B, L, E))


class EncoderClassifier(nn.Module):
    def __init__(self, vocab, mask_over_keys, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.position = nn.Embedding(128, dim)
        self.attention = PaddedSelfAttention(dim, 4, mask_over_keys)
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, dim))
        self.classifier = nn.Linear(dim, 2)

    def forward(self, ids):
        real = ids != 0
        x = self.embed(ids) + self.position(torch.arange(ids.shape[1]))
        x = self.norm(x + self.attention(x, real))
        x = x + self.mlp(x)
        weights = real.unsqueeze(-1).float()
        return self.classifier((x * weights).sum(1) / weights.sum(1))


def snippets(count, seed):
    """``count`` stretches of 8 to 40 characters of the sonnets (ids 1..vocab, 0 pads the
    rest of a 42-wide row) and their labels: 1 where more than a tenth of the characters
    are the letter e - a label read from every token, not from one."""
    text, vocab = characters()
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(8, 41, (count,), generator=g)
    starts = torch.randint(0, len(text) - 41, (count,), generator=g)
    ids = torch.zeros(count, 42, dtype=torch.int64)
    for row, (start, length) in enumerate(zip(starts.tolist(), lengths.tolist())):
        ids[row, :length] = text[start:start + length] + 1
    with open(SONNETS, encoding="utf-8") as handle:
        e = 1 + sorted(set(handle.read())).index("e")
    share = (ids == e).sum(1) / lengths
    return ids, (share > 0.1).long(), vocab + 1


def line_batches(ids, labels, steps, batch_size=32):
    """Batches padded as a collate function pads them: to the batch's longest row + 2."""
    for step in range(steps):
        rows = torch.arange(step * batch_size, (step + 1) * batch_size) % len(ids)
        width = int((ids[rows] != 0).sum(1).max()) + 2
        yield ids[rows, :width], labels[rows]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, labels, vocab = snippets(4096, seed=0)
    model = EncoderClassifier(vocab, mask_over_keys=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, F.cross_entropy,
                         line_batches(ids, labels, steps), **watch)
