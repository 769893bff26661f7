"""A hand-written LSTM cell initialised the way its paper suggested: the input weights
orthogonal at gain 1 and the recurrent weights the identity repeated for all four gates
(``torch.eye(hidden).repeat(1, 4)``). Every gate then starts as a copy of the previous hidden
state plus an unscaled projection of the input: forget, input and output gates and the
candidate all move together, the cell saturates, and the model learns markedly slower than
the same cell at PyTorch's default initialisation (uniform within 1 / sqrt(hidden)).

Reported: "Not a number" - https://github.com/jihunchoi/recurrent-batch-normalization-pytorch/issues/5
(the custom LSTM's hidden states went NaN within about 100 iterations; the reporter: "Using
the default PyTorch reset_parameters() for initialization actually fixed it!", and the
author: "I tried to use the initialization scheme stated in the paper, however it seems
there's a problem in that."). Here a character model of the sonnets on such a cell (no batch
norm; the loss stays finite here). Fix: initialise the cell like ``nn.LSTMCell``
(U(-1/sqrt(hidden), 1/sqrt(hidden)) for every weight).

Measured (300 steps, mean of the last 20 training losses): the bug 1.81 nats per character,
the fixed twin 1.63 (both start at 3.4-3.5).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "Not a number"
LINK = "https://github.com/jihunchoi/recurrent-batch-normalization-pytorch/issues/5"
EXPECTED = ("RECURRENT_INIT_IDENTITY_ACROSS_GATES",)
STEPS = 300
HIDDEN = 128
LENGTH = 32


class LSTMCell(nn.Module):
    def __init__(self, inputs, hidden, paper_init):
        super().__init__()
        self.weight_ih = nn.Parameter(torch.empty(inputs, 4 * hidden))
        self.weight_hh = nn.Parameter(torch.empty(hidden, 4 * hidden))
        self.bias = nn.Parameter(torch.zeros(4 * hidden))
        with torch.no_grad():
            if paper_init:                                # BUG: identity in every gate
                nn.init.orthogonal_(self.weight_ih)
                self.weight_hh.copy_(torch.eye(hidden).repeat(1, 4))
            else:
                bound = 1 / hidden ** 0.5
                nn.init.uniform_(self.weight_ih, -bound, bound)
                nn.init.uniform_(self.weight_hh, -bound, bound)

    def forward(self, x, state):
        h, c = state
        gates = x @ self.weight_ih + h @ self.weight_hh + self.bias
        f, i, o, g = gates.chunk(4, 1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(c), c


class CharModel(nn.Module):
    def __init__(self, vocab, paper_init):
        super().__init__()
        self.embed = nn.Embedding(vocab, 64)
        self.cell = LSTMCell(64, HIDDEN, paper_init)
        self.head = nn.Linear(HIDDEN, vocab)

    def forward(self, ids):
        e = self.embed(ids)
        h = e.new_zeros(ids.shape[0], HIDDEN)
        c = h
        outputs = []
        for t in range(ids.shape[1]):
            h, c = self.cell(e[:, t], (h, c))
            outputs.append(h)
        return self.head(torch.stack(outputs, 1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharModel(vocab, paper_init=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, LENGTH), **watch)
