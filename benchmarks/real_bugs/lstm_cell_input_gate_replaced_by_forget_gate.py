"""A hand-written LSTM cell whose cell-state update multiplies the candidate by the FORGET
gate where the input gate belongs: ``c = f * c + f * g`` instead of ``c = f * c + i * g``.
The input gate is still computed (a quarter of the gate projection) but never read, so
keeping the cell and writing into it are one decision: a unit that remembers a marked value
also adds whatever it reads at every later step, and a unit that refuses to write forgets.
The run completes, the loss falls from the mean-predicting level, nothing errors; the cell
just cannot hold the two marked values apart from the others it reads.

Reported: "replace forget_gate * cell_gate with input_gate * cell_gate" -
https://github.com/ARM-software/CMSIS-NN/pull/181 (the reference ``lstm_cell`` in the
pull request's description computed ``cy = (forgetgate * cx) + (forgetgate * cellgate)``;
the maintainer notes that in the C kernel both gates share one buffer, so there it was a
naming slip - in the PyTorch function as written it is the bug reproduced here). Here the
adding problem (``_hand_cells323``: 12 steps, two marked values to sum), one hand-written
LSTM cell (one projection chunked into i, f, g, o), hidden 32, unrolled over the steps, a
linear read-out of the last hidden state, Adam 1e-2, batch 64, 300 steps.

Fix: the input gate gates the candidate, ``c = f * c + i * g``.

Measured (held-out mean squared error, 1,000 fresh sequences; the mean scores 0.167):
0.0044 with the bug, 0.0023 fixed; seeds + 1000: 0.0063 vs 0.0024.
"""
import torch
from torch import nn

from benchmarks.real_bugs._hand_cells323 import HIDDEN, train_adder

TITLE = "replace forget_gate * cell_gate with input_gate * cell_gate"
LINK = "https://github.com/ARM-software/CMSIS-NN/pull/181"
EXPECTED = ("NO_GRADIENT",)
STEPS = 300


class LSTMCell(nn.Module):
    def __init__(self, inputs, hidden, fixed):
        super().__init__()
        self.fixed = fixed
        self.w_ih = nn.Linear(inputs, 4 * hidden)
        self.w_hh = nn.Linear(hidden, 4 * hidden)

    def forward(self, x, state):
        h, c = state
        i, f, g, o = (self.w_ih(x) + self.w_hh(h)).chunk(4, dim=1)
        i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
        if self.fixed:
            c = f * c + i * g
        else:
            c = f * c + f * g                   # BUG: the forget gate where i belongs
        return o * torch.tanh(c), c


class Adder(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.cell = LSTMCell(2, HIDDEN, fixed)
        self.read_out = nn.Linear(HIDDEN, 1)

    def forward(self, x):                       # x: (batch, steps, 2)
        h = x.new_zeros(x.shape[0], HIDDEN)
        state = (h, h)
        for t in range(x.shape[1]):
            state = self.cell(x[:, t], state)
        return self.read_out(state[0]).squeeze(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = Adder(fixed)
    return train_adder(model, steps, seed=0, lr=1e-2, **watch)
