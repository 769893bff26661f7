"""A character-level transformer language model whose causal mask is built with
``torch.triu(..., diagonal=2)`` where ``diagonal=1`` was meant: the mask hides positions
t + 2 onwards but not t + 1, so every position sees the very character it is trained to
predict and the training loss falls far below what the text allows.

Reported: "这个mask是否有问题？" ("Is this mask wrong?") -
https://github.com/RVC-Boss/GPT-SoVITS/issues/965 (the ``diagonal`` of the ``triu`` that
builds the autoregressive mask is off by one, "the current state amounts to predicting
two steps ahead"; a maintainer confirms the mask and the targets disagree by one
position). Here a 2-layer decoder on 32 characters of the sonnets. Fix: ``diagonal=1``.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "这个mask是否有问题？ (Is this mask wrong?)"
LINK = "https://github.com/RVC-Boss/GPT-SoVITS/issues/965"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 120
LENGTH = 32


class CharDecoder(nn.Module):
    def __init__(self, vocab, diagonal, dim=32):
        super().__init__()
        self.dim, self.diagonal = dim, diagonal
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(LENGTH, dim)
        layer = nn.TransformerEncoderLayer(dim, 2, dim_feedforward=64, dropout=0.0,
                                           batch_first=True)
        self.decoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        length = ids.shape[1]
        x = self.embed(ids) * math.sqrt(self.dim) + self.position(torch.arange(length))
        # True = hidden; BUG when diagonal == 2: the next position stays visible
        mask = torch.triu(torch.ones(length, length, dtype=torch.bool), diagonal=self.diagonal)
        return self.head(self.decoder(x, mask=mask))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharDecoder(vocab, diagonal=1 if fixed else 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, LENGTH), **watch)
