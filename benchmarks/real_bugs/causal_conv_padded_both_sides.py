"""A temporal convolution net for next-character prediction whose convolutions are
"same"-padded ((k-1)*d/2 on both sides, no Chomp1d): each output then reads (k-1)*d/2
positions ahead, so the model sees the characters it is asked to predict.

Reported: "Causality" - https://github.com/locuslab/TCN/issues/8 ("In which part of the code
you make sure the network is causal? Is it the Chomp1d?"; the authors: "We pad by (k-1)*d
on the two sides of the input for convolution, and then use Chomp1d to remove the (k-1)*d
output elements on the right ... this is equivalent to removing the 'future elements'").
Here two dilated conv layers over the sonnets' characters, padded the symmetric way an
ordinary conv net is. Fix: pad (k-1)*d and chomp the last (k-1)*d outputs (or pad on the
left only).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "Causality"
LINK = "https://github.com/locuslab/TCN/issues/8"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 120
LENGTH = 32


class TemporalBlock(nn.Module):
    def __init__(self, channels, kernel, dilation, chomp):
        super().__init__()
        self.cut = (kernel - 1) * dilation if chomp else 0
        padding = self.cut if chomp else (kernel - 1) * dilation // 2   # BUG: "same" padding
        self.conv = nn.Conv1d(channels, channels, kernel, padding=padding, dilation=dilation)

    def forward(self, x):                     # x: (batch, channels, time)
        y = self.conv(x)
        if self.cut:
            y = y[:, :, :-self.cut]           # Chomp1d: drop the outputs that read ahead
        return x + torch.relu(y)


class CharTCN(nn.Module):
    def __init__(self, vocab, chomp, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.Sequential(TemporalBlock(dim, 3, 1, chomp),
                                    TemporalBlock(dim, 3, 2, chomp))
        self.out = nn.Linear(dim, vocab)

    def forward(self, ids):
        h = self.blocks(self.embed(ids).transpose(1, 2))
        return self.out(h.transpose(1, 2))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharTCN(vocab, chomp=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, LENGTH), **watch)
