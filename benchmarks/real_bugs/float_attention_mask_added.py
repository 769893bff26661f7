"""A classifier called the Hugging Face way (``model(input_ids=..., attention_mask=...)``,
1 on real tokens, 0 on padding) that hands the 0/1 ``attention_mask``, as floats, to
``nn.MultiheadAttention`` as its ``key_padding_mask``. A float mask is *added* to the
attention scores, not used to hide positions: real keys get +1, padded keys +0, and every
token keeps attending to the padding.

Reported: "The description of key_dedding_mask in float mode is incorrect" -
https://github.com/pytorch/pytorch/issues/141018 (a float key_padding_mask of [1, 2] moved
the attention weights instead of masking; fixed in the docs by
https://github.com/pytorch/pytorch/pull/141694: "float masks modify attention weights").
Here the sonnets' verse lines, padded with id 0, labelled by whether they end in a comma.
Fix: a boolean mask, ``key_padding_mask=attention_mask == 0``.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import padded_lines

TITLE = "The description of key_dedding_mask in float mode is incorrect"
LINK = "https://github.com/pytorch/pytorch/issues/141018"
EXPECTED = ("PADDING_LEAK",)
STEPS = 100


class AttentionClassifier(nn.Module):
    def __init__(self, vocab, boolean_mask, dim=32):
        super().__init__()
        self.dim, self.boolean_mask = dim, boolean_mask
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(128, dim)
        self.attention = nn.MultiheadAttention(dim, 2, batch_first=True)
        self.norm = nn.LayerNorm(dim)
        self.classifier = nn.Linear(dim, 2)

    def forward(self, input_ids, attention_mask):
        x = self.embed(input_ids) * math.sqrt(self.dim)
        x = x + self.position(torch.arange(input_ids.shape[1]))
        if self.boolean_mask:
            ignore = attention_mask == 0
        else:
            ignore = attention_mask.float()   # BUG: added to the scores (+1 real, +0 pad)
        attended, _ = self.attention(x, x, x, key_padding_mask=ignore, need_weights=False)
        hidden = self.norm(x + attended)
        weights = attention_mask.unsqueeze(-1).float()
        return self.classifier((hidden * weights).sum(1) / weights.sum(1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = padded_lines()
    lengths = (ids != 0).sum(1)
    last = ids[torch.arange(len(ids)), lengths - 1]
    comma = ids.unique()[6]                   # id 0 pads; then " !'()," in character order
    labels = (last == comma).long()
    ids = F.pad(ids, (0, 2))                  # every line ends in padding
    model = AttentionClassifier(vocab, boolean_mask=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(ids), (32,), generator=g)
            batch = ids[rows]
            optimizer.zero_grad()
            logits = model(input_ids=batch, attention_mask=(batch != 0).long())
            loss = F.cross_entropy(logits, labels[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
