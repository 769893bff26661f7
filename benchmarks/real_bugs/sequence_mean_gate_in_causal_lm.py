"""A causal character language model (its attention correctly masked) whose blocks are
gated by a summary of the whole sequence: the mean over the time axis goes through a small
router and scales every position's update. The mean includes the positions after t, so
the output at t reads the characters it is trained to predict, around the causal mask.

Reported: "Possibility of Information leakage during causal language modelling task" -
https://github.com/Shwai-He/MEO/issues/2 ("sequence level routing which take the mean of
the batch w.r.t the sequence dim ... by taking average of all token and then calculating
score, you let the past tokens interact with the future tokens"). Here a 2-layer decoder
on 32 characters of the sonnets, each layer's output gated by a router on the sequence
mean. Fix: a causal summary (the running mean over positions 0..t).
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "Possibility of Information leakage during causal language modelling task"
LINK = "https://github.com/Shwai-He/MEO/issues/2"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 120
LENGTH = 32


class RoutedLayer(nn.Module):
    """A causal transformer layer whose output is scaled by a router's gate."""

    def __init__(self, dim, causal_summary):
        super().__init__()
        self.causal_summary = causal_summary
        self.layer = nn.TransformerEncoderLayer(dim, 2, dim_feedforward=64, dropout=0.0,
                                                batch_first=True)
        self.router = nn.Linear(dim, dim)

    def forward(self, x, mask):
        if self.causal_summary:
            counts = torch.arange(1, x.shape[1] + 1).view(1, -1, 1)
            summary = x.cumsum(1) / counts        # positions 0..t only
        else:
            summary = x.mean(1, keepdim=True)     # BUG: every position, the future included
        gate = torch.sigmoid(self.router(summary))
        return x + gate * (self.layer(x, src_mask=mask) - x)


class RoutedDecoder(nn.Module):
    def __init__(self, vocab, causal_summary, dim=32):
        super().__init__()
        self.dim = dim
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(LENGTH, dim)
        self.layers = nn.ModuleList(RoutedLayer(dim, causal_summary) for _ in range(2))
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        length = ids.shape[1]
        x = self.embed(ids) * math.sqrt(self.dim) + self.position(torch.arange(length))
        mask = nn.Transformer.generate_square_subsequent_mask(length)
        for layer in self.layers:
            x = layer(x, mask)
        return self.head(x)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = RoutedDecoder(vocab, causal_summary=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, LENGTH), **watch)
