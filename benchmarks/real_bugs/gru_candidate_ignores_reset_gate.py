"""A GRU cell written by hand whose candidate state reads the raw previous hidden state:
the reset gate ``r`` is computed by its own layer every step and then never used, where
the candidate should read ``r * h``. The cell loses its way to drop the running state
when it builds the new candidate, so the values it should ignore keep leaking into what it
writes; the run completes, the loss falls, nothing errors - it just learns the task
noticeably worse than the GRU it was meant to be.

Reported: "Wrong GRU-D update functions" - https://github.com/zhiyongc/GRU-D/issues/2
("When computing h_tilde in the GRU cell, you have to first multiply the hidden state
with the reset gate"; the author fixed the code). Here the adding problem
(``_hand_cells323``: 12 steps, two marked values to sum), a hand-written GRU cell with
separate update, reset and candidate layers over [x, h], hidden 32, unrolled over the
steps, a linear read-out of the last hidden state, Adam 3e-3, batch 64, 300 steps.

Fix: the candidate reads the reset hidden state, ``tanh(W [x, r * h])``.

Measured (held-out mean squared error, 1,000 fresh sequences; the mean scores 0.167):
0.072 with the bug, 0.036 fixed; seeds + 1000: 0.055 vs 0.017.
"""
import torch
from torch import nn

from benchmarks.real_bugs._hand_cells323 import HIDDEN, train_adder

TITLE = "Wrong GRU-D update functions"
LINK = "https://github.com/zhiyongc/GRU-D/issues/2"
EXPECTED = ("NO_GRADIENT",)
STEPS = 300


class GRUCell(nn.Module):
    def __init__(self, inputs, hidden, fixed):
        super().__init__()
        self.fixed = fixed
        self.update = nn.Linear(inputs + hidden, hidden)
        self.reset = nn.Linear(inputs + hidden, hidden)
        self.candidate = nn.Linear(inputs + hidden, hidden)

    def forward(self, x, h):
        both = torch.cat([x, h], dim=1)
        z = torch.sigmoid(self.update(both))
        r = torch.sigmoid(self.reset(both))
        if self.fixed:
            h_tilde = torch.tanh(self.candidate(torch.cat([x, r * h], dim=1)))
        else:
            h_tilde = torch.tanh(self.candidate(both))      # BUG: r is never applied
        return (1 - z) * h + z * h_tilde


class Adder(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.cell = GRUCell(2, HIDDEN, fixed)
        self.read_out = nn.Linear(HIDDEN, 1)

    def forward(self, x):                       # x: (batch, steps, 2)
        h = x.new_zeros(x.shape[0], HIDDEN)
        for t in range(x.shape[1]):
            h = self.cell(x[:, t], h)
        return self.read_out(h).squeeze(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = Adder(fixed)
    return train_adder(model, steps, seed=0, **watch)
