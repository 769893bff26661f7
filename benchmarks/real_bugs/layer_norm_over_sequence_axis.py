"""A hand-written layer normalisation that takes its mean and standard deviation over the
sequence axis instead of the feature axis. In a decoder trained on next-token prediction
every position is then shifted and scaled by statistics of the whole sequence, the future
positions included, so the model reads the tokens it is asked to predict.

Reported: "Correct LayerNormalization" -
https://github.com/jadore801120/attention-is-all-you-need-pytorch/pull/17 ("the size of z
is (batch_size, seq_len, feature_dim). Your original implementation computes the mean and
standard-deviation along the dimsion seq_len. But the Layer Normalization should compute
these values along the dimsion feature_dim"). Here a one-block causal transformer over the
sonnets' characters, with the same hand-written normalisation after its attention and its
feed-forward sub-layers. Fix: the statistics over the last (feature) axis.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "Correct LayerNormalization"
LINK = "https://github.com/jadore801120/attention-is-all-you-need-pytorch/pull/17"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 120
LENGTH = 32


class LayerNormalization(nn.Module):
    def __init__(self, dim, axis, eps=1e-3):
        super().__init__()
        self.axis, self.eps = axis, eps
        self.gain = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, z):                      # z: (batch, length, dim)
        mu = z.mean(dim=self.axis, keepdim=True)
        sigma = z.std(dim=self.axis, keepdim=True)
        return (z - mu) / (sigma + self.eps) * self.gain + self.bias


class DecoderLM(nn.Module):
    def __init__(self, vocab, fixed, dim=32, heads=2):
        super().__init__()
        axis = -1 if fixed else 1   # BUG (fixed=False): axis 1 is the sequence, not features
        self.dim = dim
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(LENGTH, dim)
        self.attention = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm1 = LayerNormalization(dim, axis)
        self.feed = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, dim))
        self.norm2 = LayerNormalization(dim, axis)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        length = ids.shape[1]
        x = self.embed(ids) * math.sqrt(self.dim) + self.position(torch.arange(length))
        mask = nn.Transformer.generate_square_subsequent_mask(length)
        x = self.norm1(x + self.attention(x, x, x, attn_mask=mask, need_weights=False)[0])
        x = self.norm2(x + self.feed(x))
        return self.head(x)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = DecoderLM(vocab, fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, LENGTH), **watch)
