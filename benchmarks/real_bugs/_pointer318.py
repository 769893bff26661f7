"""Shared pieces of batch 318: a first pointer network that sorts short lists of numbers
(an LSTM encoder, an LSTM-cell decoder, additive attention whose scores ARE the output),
trained with teacher forcing on the argsort of each list, and a small self-attention
ranker. Data: lists of LENGTH uniform numbers in [0, 1) from a fixed NumPy seed."""
import numpy as np
import torch
from torch import nn

LENGTH = 6


def lists(n=4000, held=1000, seed=0):
    """(x, order) for training and held out: x (N, LENGTH) float32, order (N, LENGTH) the
    argsort (the index to point at, step by step, to read the list in increasing order)."""
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.random((n + held, LENGTH)).astype(np.float32))
    order = x.argsort(dim=1)
    return (x[:n], order[:n]), (x[n:], order[n:])


class PointerNet(nn.Module):
    """Vinyals-style pointer network: the decoder reads the value it pointed at last (the
    start token first) and scores every input position with v . tanh(W1 e_j + W2 d)."""

    def __init__(self, hidden=64):
        super().__init__()
        self.embed = nn.Linear(1, hidden)
        self.encoder = nn.LSTM(hidden, hidden, batch_first=True)
        self.decoder = nn.LSTMCell(hidden, hidden)
        self.start = nn.Parameter(torch.zeros(hidden))
        self.w1 = nn.Linear(hidden, hidden, bias=False)
        self.w2 = nn.Linear(hidden, hidden, bias=False)
        self.v = nn.Linear(hidden, 1, bias=False)

    def encode(self, x):
        e = self.embed(x.unsqueeze(-1))
        enc, (h, c) = self.encoder(e)
        return e, enc, (h[0], c[0])

    def scores(self, enc, keys, state, inp):
        h, c = self.decoder(inp, state)
        u = self.v(torch.tanh(keys + self.w2(h).unsqueeze(1))).squeeze(-1)
        return u, (h, c)


def gather_rows(table, index):
    """table (B, L, H), index (B,) -> (B, H)."""
    return table[torch.arange(len(index)), index]


def exact_and_position_accuracy(pred, order):
    right = pred == order
    return right.all(1).float().mean().item(), right.float().mean().item()
