"""A language model built from nn.TransformerEncoder trains on next-token prediction
without a causal mask: every position attends to the tokens it is asked to predict.

Reported: "TransformerEncoder is not causal" - https://github.com/pytorch/tutorials/issues/2478
(PyTorch's language-modelling tutorial passed no mask; a commenter: the model "was never
able to give a prediction for the next word that made any sense, despite reaching a
perplexity of 2.9"; fixed by pytorch/tutorials#2662). Here a 2-layer encoder reads 32
characters of the sonnets and predicts each next character. Fix: pass
`nn.Transformer.generate_square_subsequent_mask(length)` as the mask.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "TransformerEncoder is not causal"
LINK = "https://github.com/pytorch/tutorials/issues/2478"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 120
LENGTH = 32


class TransformerLM(nn.Module):
    def __init__(self, vocab, dim=32, heads=2, layers=2, causal=True):
        super().__init__()
        self.dim, self.causal = dim, causal
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(LENGTH, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, dim_feedforward=64, dropout=0.1,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        length = ids.shape[1]
        x = self.embed(ids) * math.sqrt(self.dim) + self.position(torch.arange(length))
        mask = nn.Transformer.generate_square_subsequent_mask(length) if self.causal else None
        return self.head(self.encoder(x, mask=mask))     # BUG when causal=False: no mask


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = TransformerLM(vocab, causal=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, LENGTH), **watch)
