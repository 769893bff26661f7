"""The PyTorch tutorial's PositionalEncoding (a (max_len, 1, dim) table added as
pe[:x.size(0)], written for (T, B, E) inputs) used on batch-first tensors: x.size(0) is the
batch, so sample b gets row b of the table at every position. The model gets no position
information, and what it computes depends on where a sample sits in the batch.

Reported: "Positional encoding problem" - https://github.com/AkiRusProd/numpy-transformer/issues/1
("I think it is adding positional encoding toward the batch example, not towards the
respective words"; acknowledged and amended). Here a causal character transformer on the
sonnets, batch-first. Fix: a (1, max_len, dim) table sliced with x.size(1).
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "Positional encoding problem"
LINK = "https://github.com/AkiRusProd/numpy-transformer/issues/1"
EXPECTED = ("BATCH_MIXING",)
STEPS = 120
LENGTH = 32


def sinusoid_table(length, dim):
    position = torch.arange(length).unsqueeze(1)
    scale = torch.exp(torch.arange(0, dim, 2) * (-math.log(10000.0) / dim))
    table = torch.zeros(length, 1, dim)                 # (max_len, 1, dim): time-first
    table[:, 0, 0::2] = torch.sin(position * scale)
    table[:, 0, 1::2] = torch.cos(position * scale)
    return table


class CausalLM(nn.Module):
    def __init__(self, vocab, fixed, dim=32):
        super().__init__()
        self.dim, self.fixed = dim, fixed
        self.embed = nn.Embedding(vocab, dim)
        self.register_buffer("pe", sinusoid_table(64, dim))
        layer = nn.TransformerEncoderLayer(dim, 2, dim_feedforward=64, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.embed(ids) * math.sqrt(self.dim)       # (B, T, E)
        if self.fixed:
            x = x + self.pe[:x.size(1)].transpose(0, 1)
        else:
            x = x + self.pe[:x.size(0)]                 # BUG: indexed by the batch
        mask = nn.Transformer.generate_square_subsequent_mask(ids.shape[1])
        return self.head(self.encoder(x, mask=mask, is_causal=True))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CausalLM(vocab, fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    data = next_character_batches(ids, steps, LENGTH)
    return train_watched(model, optimizer, next_id_loss, data, **watch)
