"""A sinusoidal positional encoding added as ``x + self.pe[:, x.shape[1], :]`` - the row of
position ``x.shape[1]`` - where the slice ``self.pe[:, :x.shape[1], :]`` was meant: every
token gets the same vector (the encoding of one position past the end), so the encoder
gets no word of where each token stands and is blind to order.

Reported: "Critical bug in the implementation of the PositionalEncoding class" -
https://github.com/DiffPoseTalk/DiffPoseTalk/issues/20 ("the bug happens when adding the
encodings of the first x.shape[1] elements but for that to happen we need the slicing which
was missing, leading to adding only one PE to all the input sequence elements which
corresponds to position x.shape[1]"). Here the encoder reads 12 characters of the sonnets,
mean-pools them, and a linear head predicts the character after them.
Fix: ``x + self.pe[:, :x.shape[1], :]``.
Measured (300 steps, seed 0; mean of the last 20 training losses, first 10 in brackets): bug
3.01 (3.69), fixed 2.37 (3.66).
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import characters, text_windows

TITLE = "Critical bug in the implementation of the PositionalEncoding class"
LINK = "https://github.com/DiffPoseTalk/DiffPoseTalk/issues/20"
EXPECTED = ("POSITIONS_IGNORED",)
STEPS = 300
LENGTH = 12


class PositionalEncoding(nn.Module):
    def __init__(self, dim, sliced, max_len=64):
        super().__init__()
        self.sliced = sliced
        position = torch.arange(max_len).float()[:, None]
        frequency = torch.exp(torch.arange(0, dim, 2).float() * (-math.log(10000.0) / dim))
        pe = torch.zeros(max_len, dim)
        pe[:, 0::2] = torch.sin(position * frequency)
        pe[:, 1::2] = torch.cos(position * frequency)
        self.register_buffer("pe", pe[None])

    def forward(self, x):
        if self.sliced:
            return x + self.pe[:, :x.shape[1], :]
        return x + self.pe[:, x.shape[1], :]      # BUG: one position's row for every token


class NextCharacterEncoder(nn.Module):
    def __init__(self, vocab, sliced, dim=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.positions = PositionalEncoding(dim, sliced)
        layer = nn.TransformerEncoderLayer(dim, 4, dim_feedforward=128, dropout=0.0,
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.positions(self.embed(ids))
        return self.head(self.encoder(x).mean(1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = NextCharacterEncoder(vocab, sliced=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(ids, steps, length=LENGTH):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(window[:, :-1]), window[:, -1])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
