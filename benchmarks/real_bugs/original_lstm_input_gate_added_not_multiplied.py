"""A hand-written LSTM cell of the original (1997) kind - no forget gate, the cell state
adds each step's gated input, ``c = c + sigmoid(i) * tanh(g)`` - whose update ADDS the
input gate to the candidate instead of multiplying them: ``c = c + sigmoid(i) +
tanh(g)``. The input gate no longer gates anything: every step writes into the cell
whatever it reads, plus a positive drift (the sigmoid), so the cell cannot keep two marked
values apart from the thirty others it reads. The network still trains, its loss falls to
about what predicting the mean scores, nothing errors or goes non-finite; it just cannot
learn the task that this cell exists for.

Reported: "Wrong computation of gates in `OriginalLSTMCell`" -
https://github.com/MartinuzziFrancesco/torchrecurrent/issues/22 (the library's original
LSTM cell summed ``torch.sigmoid(input_gate) + torch.tanh(cell_gate)`` where the product
belongs; fixed by the maintainer in PR #23 with the product). Here the 'adding problem'
of the LSTM literature (benchmarks/real_bugs/_rnn170.py): 30 steps of (value, marker),
two steps marked (one in each half), the target the sum of the two marked values; a
hand-written original LSTM cell, hidden 32, unrolled over the steps, a linear read-out of
its last hidden state, Adam 3e-3, batch 64, fresh sequences every step. Fix: the product
``sigmoid(i) * tanh(g)``.

Measured (held-out mean squared error on 1,000 fresh sequences; predicting the mean scores
1/6 = 0.167): seed 0, 0.178 for the bug against 0.007 for the fixed twin; seeds shifted by
1000, 0.162 against 0.005.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._rnn170 import adding_problem

TITLE = "Wrong computation of gates in `OriginalLSTMCell`"
LINK = "https://github.com/MartinuzziFrancesco/torchrecurrent/issues/22"
EXPECTED = ("LSTM_INPUT_GATE_NOT_GATING",)
STEPS = 800
LENGTH, BATCH, HIDDEN = 30, 64, 32


class OriginalLSTMCell(nn.Module):
    """Hochreiter and Schmidhuber's cell: input and output gates, no forget gate."""

    def __init__(self, inputs, hidden, fixed):
        super().__init__()
        self.fixed = fixed
        self.from_input = nn.Linear(inputs, 3 * hidden)
        self.from_hidden = nn.Linear(hidden, 3 * hidden, bias=False)

    def forward(self, x, state):
        h, c = state
        i, g, o = (self.from_input(x) + self.from_hidden(h)).chunk(3, dim=1)
        if self.fixed:
            c = c + torch.sigmoid(i) * torch.tanh(g)
        else:
            c = c + torch.sigmoid(i) + torch.tanh(g)     # BUG: + where the gate multiplies
        return torch.sigmoid(o) * torch.tanh(c), c


class Adder(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.cell = OriginalLSTMCell(2, HIDDEN, fixed)
        self.read_out = nn.Linear(HIDDEN, 1)

    def forward(self, x):                  # x: (batch, steps, 2)
        h = x.new_zeros(x.shape[0], HIDDEN)
        state = (h, h)
        for t in range(x.shape[1]):
            state = self.cell(x[:, t], state)
        return self.read_out(state[0]).squeeze(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = adding_problem(steps * BATCH, LENGTH, rng)
    x_test, y_test = adding_problem(1000, LENGTH, rng)
    model = Adder(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            rows = slice(step * BATCH, (step + 1) * BATCH)
            loss = nn.functional.mse_loss(model(x[rows]), y[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_mse = nn.functional.mse_loss(model(x_test), y_test).item()
    return mon
