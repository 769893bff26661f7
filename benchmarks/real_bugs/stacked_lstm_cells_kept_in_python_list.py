"""A two-layer LSTM written by hand whose cells are kept in a plain Python list
(``self.cells = [LSTMCell(...), LSTMCell(...)]``): ``nn.Module`` does not look inside
lists, so the cells' weights are not among ``model.parameters()`` and the optimizer built
from them trains the linear read-out alone. The recurrent layers stay at their random
initialisation - a fixed random reservoir - and the read-out learns what it can from it;
the loss falls a little, then levels off far above what the network can reach, and
nothing errors.

Reported: "LSTM weights not optimised" -
https://github.com/ikostrikov/pytorch-meta-optimizer/issues/11 (the stacked LSTM cells
appended to a list "will not add their trainable parameters to the model parameter
list"; the fix proposed wraps them in a registered container). Here the adding problem
(``_hand_cells323``: 12 steps, two marked values to sum), two hand-written LSTM cells,
hidden 32, the second reading the first's hidden state at each step, a linear read-out of
the top layer's last hidden state, Adam 1e-2 over ``model.parameters()``, batch 64, 300
steps.

Fix: ``self.cells = nn.ModuleList([...])``, so the optimizer holds the cells' weights.

Measured (held-out mean squared error, 1,000 fresh sequences; the mean scores 0.167):
0.158 with the bug, 0.0011 fixed; seeds + 1000: 0.148 vs 0.0008.
"""
import torch
from torch import nn

from benchmarks.real_bugs._hand_cells323 import HIDDEN, train_adder

TITLE = "LSTM weights not optimised"
LINK = "https://github.com/ikostrikov/pytorch-meta-optimizer/issues/11"
EXPECTED = ("UNREGISTERED_PARAMETERS", "PARAMS_NOT_UPDATING")
STEPS = 300
LAYERS = 2


class LSTMCell(nn.Module):
    def __init__(self, inputs, hidden):
        super().__init__()
        self.w_ih = nn.Linear(inputs, 4 * hidden)
        self.w_hh = nn.Linear(hidden, 4 * hidden)

    def forward(self, x, state):
        h, c = state
        i, f, g, o = (self.w_ih(x) + self.w_hh(h)).chunk(4, dim=1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(c), c


class StackedAdder(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        cells = [LSTMCell(2 if k == 0 else HIDDEN, HIDDEN) for k in range(LAYERS)]
        if fixed:
            self.cells = nn.ModuleList(cells)
        else:
            self.cells = cells                  # BUG: a plain list registers nothing
        self.read_out = nn.Linear(HIDDEN, 1)

    def forward(self, x):                       # x: (batch, steps, 2)
        zero = x.new_zeros(x.shape[0], HIDDEN)
        states = [(zero, zero) for _ in self.cells]
        for t in range(x.shape[1]):
            inputs = x[:, t]
            for k, cell in enumerate(self.cells):
                states[k] = cell(inputs, states[k])
                inputs = states[k][0]
        return self.read_out(states[-1][0]).squeeze(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = StackedAdder(fixed)
    return train_adder(model, steps, seed=0, lr=1e-2, **watch)
