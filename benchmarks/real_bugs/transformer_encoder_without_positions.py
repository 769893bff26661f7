"""A Transformer encoder that gets token embeddings and nothing that says where each token
stands: self-attention is blind to order, so the encoder's summary of a sequence is the
same for every ordering of its tokens, and whatever the head predicts from it cannot
depend on the order.

Reported: "Add sinusoidal positional encoding to the Transformer VAE" -
https://github.com/DaoyuanLi2816/Molecule-Generator/pull/23 ("the model embedded tokens and
fed them straight to the Transformer encoder with no positional encoding. Self-attention is
permutation-invariant, so the model could not distinguish token order - e.g. `CCO` and `OCC`
looked identical to the encoder"). Here the encoder reads 12 characters of the sonnets,
mean-pools them, and a linear head predicts the character after them.
Fix: add a sinusoidal positional encoding to the embeddings before the encoder.

Measured (300 steps, seed 0; the next character after 512 held-out windows): bug: last
training loss 2.61, accuracy 0.18; fixed: last training loss 1.94, accuracy 0.30.
Named by POSITIONS_IGNORED (monitor/order_blind_attention.py: the pooled output did not move
when the tokens were shuffled, and the model has no positional tensor).
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import characters, text_windows

TITLE = "Add sinusoidal positional encoding to the Transformer VAE"
LINK = "https://github.com/DaoyuanLi2816/Molecule-Generator/pull/23"
EXPECTED = ("POSITIONS_IGNORED",)
STEPS = 300
LENGTH = 12


def sinusoids(length, dim):
    """The fixed sine/cosine table of "Attention Is All You Need", (length, dim)."""
    position = torch.arange(length).float()[:, None]
    frequency = torch.exp(torch.arange(0, dim, 2).float() * (-math.log(10000.0) / dim))
    table = torch.zeros(length, dim)
    table[:, 0::2] = torch.sin(position * frequency)
    table[:, 1::2] = torch.cos(position * frequency)
    return table


class NextCharacterEncoder(nn.Module):
    def __init__(self, vocab, positions, dim=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.register_buffer("positions", sinusoids(LENGTH, dim) if positions else None)
        layer = nn.TransformerEncoderLayer(dim, 4, dim_feedforward=128, dropout=0.0,
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.embed(ids)
        if self.positions is not None:
            x = x + self.positions
        # BUG without positions: the encoder sees a bag of characters
        return self.head(self.encoder(x).mean(1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = NextCharacterEncoder(vocab, positions=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(ids, steps, length=LENGTH):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(window[:, :-1]), window[:, -1])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.measured_loss = loss.item()
    held_out = next(text_windows(ids, 1, batch_size=512, length=LENGTH, seed=1))
    with torch.no_grad():
        predicted = model(held_out[:, :-1]).argmax(-1)
    mon.measured_accuracy = (predicted == held_out[:, -1]).float().mean().item()
    return mon
