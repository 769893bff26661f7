"""Batch-first tokens (B, T, E) handed to nn.MultiheadAttention, which reads (T, B, E), after
y.view(T, B, E) instead of y.transpose(0, 1): view keeps the memory order, so each
"sequence" the attention sees is a slice across several samples, and every sample's output
reads other samples' tokens.

Reported: "y = y.view(8, 512, 3) is wrong" - https://github.com/rish-16/tokenlearner-pytorch/issues/1
("I think it's wrong. It should be corrected as y = y.transpose(0, 1)"; the author: "Thanks
for the catch!"). Here the 8x8 digits as 8 tokens of 8 pixels, one attention layer and a
mean over tokens. Fix: transpose(0, 1) there and back.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "y = y.view(8, 512, 3) is wrong"
LINK = "https://github.com/rish-16/tokenlearner-pytorch/issues/1"
EXPECTED = ("BATCH_MIXING",)
STEPS = 120


class RowAttention(nn.Module):
    def __init__(self, fixed, dim=32):
        super().__init__()
        self.fixed = fixed
        self.embed = nn.Linear(8, dim)
        self.attention = nn.MultiheadAttention(dim, 4)           # reads (T, B, E)
        self.head = nn.Linear(dim, 10)

    def forward(self, x):
        y = self.embed(x.view(-1, 8, 8))                         # (B, T, E)
        b, t, e = y.shape
        y = y.transpose(0, 1) if self.fixed else y.view(t, b, e)  # BUG when not fixed
        y, _ = self.attention(y, y, y, need_weights=False)
        y = y.transpose(0, 1) if self.fixed else y.view(b, t, e)
        return self.head(y.mean(dim=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = RowAttention(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
