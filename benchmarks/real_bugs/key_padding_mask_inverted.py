"""A transformer sentence classifier whose key padding mask has the wrong polarity: it is
built as ``ids != pad`` (True on the real tokens), while PyTorch's ``key_padding_mask``
masks the positions that are True. Every real token then attends to the padding only, and
what the encoder adds to a token is read from the padded tail of its line.

Reported: "I think mask padding value should be False" -
https://github.com/lucidrains/feedback-transformer-pytorch/issues/6 (a mask handed to the
attention with the polarity the other convention uses; PyTorch's docs: "the positions with
the value of True will be ignored"). Here the sonnets' verse lines, padded with id 0 (at
least two pads each, so no row is masked whole), labelled by whether they end in a comma.
Fix: ``key_padding_mask = ids == pad``.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import padded_lines, train_watched

TITLE = "I think mask padding value should be False"
LINK = "https://github.com/lucidrains/feedback-transformer-pytorch/issues/6"
EXPECTED = ("PADDING_LEAK",)
STEPS = 100


class EncoderClassifier(nn.Module):
    def __init__(self, vocab, mask_marks_padding, dim=32):
        super().__init__()
        self.dim, self.mask_marks_padding = dim, mask_marks_padding
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.position = nn.Embedding(128, dim)
        layer = nn.TransformerEncoderLayer(dim, 2, dim_feedforward=64, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.classifier = nn.Linear(dim, 2)

    def forward(self, ids):
        real = ids != 0
        # BUG when not mask_marks_padding: True must mark the positions to ignore
        mask = ~real if self.mask_marks_padding else real
        x = self.embed(ids) * math.sqrt(self.dim) + self.position(torch.arange(ids.shape[1]))
        hidden = self.encoder(x, src_key_padding_mask=mask)
        weights = real.unsqueeze(-1).float()
        return self.classifier((hidden * weights).sum(1) / weights.sum(1))


def line_batches(ids, labels, steps, batch_size=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        rows = torch.randint(0, len(ids), (batch_size,), generator=g)
        yield ids[rows], labels[rows]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = padded_lines()
    lengths = (ids != 0).sum(1)
    last = ids[torch.arange(len(ids)), lengths - 1]
    comma = ids.unique()[6]                   # id 0 pads; then " !'()," in character order
    labels = (last == comma).long()
    ids = F.pad(ids, (0, 2))                  # every line ends in padding
    model = EncoderClassifier(vocab, mask_marks_padding=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.functional.cross_entropy,
                         line_batches(ids, labels, steps), **watch)
