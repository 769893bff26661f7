"""Self-attention masks the padding with masked_fill(mask == 0, -1e-9): minus one
billionth, not minus a billion, so the padded positions keep their full weight in the
softmax and every real position reads the padding.

Reported: "attention value is not masked out by attention mask" -
https://github.com/Shujun-He/RibonanzaNet/issues/5 ("The masked value of the attention
scores are set to -1e-9 ... since -1e-9 is basically 0, it does not have the ability to
mask out attention"; filling -1e9 masks the padding). Here a one-layer attention encoder
reads the sonnets' verse lines, padded at the end, with 15% of the characters hidden, and
predicts the hidden ones. Fix: fill with -1e9 (or the dtype's lowest value).
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import padded_lines

TITLE = "attention value is not masked out by attention mask"
LINK = "https://github.com/Shujun-He/RibonanzaNet/issues/5"
EXPECTED = ("PADDING_LEAK",)
STEPS = 120
BATCH = 32
HIDDEN_SHARE = 0.15
IGNORE = -100


class MaskedAttentionEncoder(nn.Module):
    def __init__(self, vocab, length, fill, dim=32):
        super().__init__()
        self.fill, self.scale = fill, dim ** -0.5
        self.embed = nn.Embedding(vocab + 1, dim)         # the last id hides a character
        self.position = nn.Embedding(length, dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, dim))
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids, attention_mask):              # attention_mask: 1 = real, 0 = pad
        x = self.embed(ids) + self.position(torch.arange(ids.shape[1]))
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(1, 2) * self.scale
        scores = scores.masked_fill(attention_mask[:, None, :] == 0, self.fill)  # BUG: -1e-9
        x = x + torch.softmax(scores, dim=-1) @ v
        return self.head(x + self.mlp(x))


def hidden_characters(lines, vocab, steps, rng):
    """(ids with 15% of the real characters replaced by the hiding id, attention mask,
    targets: the hidden characters, IGNORE elsewhere) for ``steps`` random batches."""
    for _ in range(steps):
        ids = lines[torch.from_numpy(rng.choice(len(lines), BATCH, replace=False))]
        mask = (ids != 0).long()
        hide = torch.from_numpy(rng.random(ids.shape) < HIDDEN_SHARE) & (mask == 1)
        targets = torch.where(hide, ids, torch.full_like(ids, IGNORE))
        yield ids.masked_fill(hide, vocab), mask, targets


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    lines, vocab = padded_lines()
    model = MaskedAttentionEncoder(vocab, lines.shape[1], fill=-1e9 if fixed else -1e-9)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for ids, mask, targets in hidden_characters(lines, vocab, steps,
                                                    np.random.default_rng(0)):
            optimizer.zero_grad()
            logits = model(ids, mask)
            loss = F.cross_entropy(logits.transpose(1, 2), targets, ignore_index=IGNORE)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
