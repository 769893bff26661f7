"""A small transformer classifier whose sinusoidal positional encoding takes its positions
from x.size(0) on batch-first input (batch, tokens, features): the "positions" are the
batch rows, so every token of a sequence gets the same vector (its row number's), order
is invisible to the encoder, and a task that needs the order is left at a guess while the
loss still moves.

Reported: "positional encoding fix for 05_transformers?" -
https://github.com/cmu-l3/anlp-fall2025-code/issues/1 ("after broadcasting, all tokens in
the same sequence get the SAME positional encoding"; the course's transformer code built
pos = torch.arange(x.size(0)).unsqueeze(1) for batch-first x). Here 8-token sequences of
16 ids: ascending sequences against the same kind of draw shuffled, a 2-layer
TransformerEncoder (batch_first, d_model 32, 4 heads), mean-pooled over tokens into a
linear head; Adam, batches of 64, 300 steps.
Fix: positions along the token axis, pos = torch.arange(x.size(1)).unsqueeze(0)
(one encoding per position, shared by the batch).

Measured (held-out accuracy on 500 sequences): seed 0: 0.512 with the bug, 0.830 fixed;
seeds + 1000: 0.508 vs 0.804.
"""
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._seqaxis320 import accuracy, sortedness_data

TITLE = "positional encoding fix for 05_transformers?"
LINK = "https://github.com/cmu-l3/anlp-fall2025-code/issues/1"
EXPECTED = ("POSITIONS_IGNORED",)
STEPS = 300


def sinusoidal(pos, dim):
    """Sinusoids of the positions in ``pos`` (any shape): (*pos.shape, dim)."""
    freq = torch.exp(torch.arange(0, dim, 2).float() * (-math.log(10000.0) / dim))
    angle = pos.float().unsqueeze(-1) * freq
    return torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(-2)


class OrderClassifier(nn.Module):
    def __init__(self, fixed, vocab=16, dim=32):
        super().__init__()
        self.fixed, self.dim = fixed, dim
        self.emb = nn.Embedding(vocab, dim)
        layer = nn.TransformerEncoderLayer(dim, 4, 64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(dim, 2)

    def forward(self, ids):
        x = self.emb(ids) * math.sqrt(self.dim)          # (batch, tokens, dim)
        if self.fixed:
            pos = torch.arange(x.size(1)).unsqueeze(0)   # (1, tokens)
        else:
            pos = torch.arange(x.size(0)).unsqueeze(1)   # BUG: (batch, 1), the batch rows
        x = x + sinusoidal(pos, self.dim)
        return self.head(self.encoder(x).mean(dim=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = sortedness_data(4000, seed=0)
    xh, yh = sortedness_data(500, seed=1)
    model = OrderClassifier(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
