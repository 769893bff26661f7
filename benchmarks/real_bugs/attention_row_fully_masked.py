"""Attention masks padding keys with -inf before the softmax. A sequence whose every key is
padding gets a row of -inf only: softmax gives 0 / 0 = NaN for the whole row, and the NaN
reaches the loss and every weight.

Reported: "multi_head_attention_forward produces NaN" -
https://github.com/pytorch/pytorch/issues/26098 ("I am feeding a key_padding_mask tensor ...
works fine without the mask, but otherwise it produces several NaN values in the output. The
problem is ... where float('inf') is used for filling the values before softmax"). Here each
pixel column of a digit is a sequence of its 8 pixels, blank pixels are padding, and
attention pools each column's inked pixels; the first column of nearly every digit is blank:
all padding. Fix: fill with a large finite negative number (torch.finfo(dtype).min), so a
row of padding only gets uniform weights over zero tokens.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "multi_head_attention_forward produces NaN"
LINK = "https://github.com/pytorch/pytorch/issues/26098"
EXPECTED = ("NAN_BORN_IN_FORWARD",)
STEPS = 150


class ColumnPooling(nn.Module):
    """Attention over each column's pixels (blank ones masked), then a classifier."""

    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.embed = nn.Linear(2, 16)                   # (pixel value, row position)
        self.score = nn.Linear(16, 1)
        self.head = nn.Linear(8 * 16, 10)

    def forward(self, x):
        pixels = x.view(-1, 8, 8).transpose(1, 2)     # (B, 8 columns, 8 pixels)
        rows = torch.linspace(0, 1, 8).expand_as(pixels)
        tokens = torch.tanh(self.embed(torch.stack([pixels, rows], -1)))
        scores = self.score(tokens).squeeze(-1)
        fill = torch.finfo(scores.dtype).min if self.fixed else float("-inf")   # BUG: -inf
        weights = scores.masked_fill(pixels == 0, fill).softmax(-1)
        pooled = (weights.unsqueeze(-1) * tokens).sum(2)            # (B, 8 columns, 16)
        return self.head(pooled.flatten(1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = ColumnPooling(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps), **watch)
