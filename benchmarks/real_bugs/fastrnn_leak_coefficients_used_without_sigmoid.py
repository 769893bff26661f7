"""A FastRNN cell written by hand - h_t = alpha * tanh(W x_t + U h_{t-1} + b) + beta *
h_{t-1}, a leaky recurrence whose decay beta should lie in (0, 1) - whose two trainable
scalars are stored as the official code stores them, as pre-sigmoid values initialised to
alpha = -3 and beta = 3, but used in the forward pass raw, without the sigmoid. The "decay"
is then 3: the state triples every step (and the new input enters with weight -3), so the
earliest row is multiplied 3^7 times while the last is added once; the tanh candidate stays
bounded, the state does not, and the classifier reading the last step sees a huge vector
dominated by the first rows. Adam walks beta down a few hundredths per step, so the loss
falls, slowly, from far above chance.

Reported: "`alpha` and `beta` should be inside a `sigmoid` function in `FastRNNCell`" -
https://github.com/MartinuzziFrancesco/LuxRecurrentLayers.jl/issues/12 ("the forward pass
of `FastRNNCell` is incorrect at the moment"; fixed by adding the sigmoid, #13, and the
same fix in the PyTorch port, MartinuzziFrancesco/torchrecurrent#30). Here the cell with
EdgeML's initial values (alpha -3, beta 3 before the sigmoid), 64 units, over the 8x8
digits read as 8 rows of 8 pixels, the class read from the last step by a linear head;
Adam 3e-3, 400 steps of 64.

Fix: ``alpha, beta = torch.sigmoid(self.alpha), torch.sigmoid(self.beta)`` in forward.

Measured (held-out accuracy, 500 digits): 0.496 with the bug, 0.818 fixed (the official
small initial alpha makes the fixed cell a slow learner too); seeds + 1000: 0.542 vs 0.830.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._ssm337 import accuracy, row_sequences

TITLE = "`alpha` and `beta` should be inside a `sigmoid` function in `FastRNNCell`"
LINK = "https://github.com/MartinuzziFrancesco/LuxRecurrentLayers.jl/issues/12"
EXPECTED = ("EXPLODING_ACTIVATIONS",)
STEPS = 400


class FastRNNCell(nn.Module):
    def __init__(self, inputs, hidden, alpha_init=-3.0, beta_init=3.0, squash=False):
        super().__init__()
        self.squash = squash
        self.W = nn.Linear(inputs, hidden)
        self.U = nn.Parameter(torch.randn(hidden, hidden) / math.sqrt(hidden))
        self.alpha = nn.Parameter(torch.tensor(alpha_init))
        self.beta = nn.Parameter(torch.tensor(beta_init))

    def forward(self, x_t, h):
        if self.squash:                        # the fix
            alpha, beta = torch.sigmoid(self.alpha), torch.sigmoid(self.beta)
        else:                                  # BUG: the raw pre-sigmoid values
            alpha, beta = self.alpha, self.beta
        return alpha * torch.tanh(self.W(x_t) + h @ self.U) + beta * h


class RowClassifier(nn.Module):
    def __init__(self, squash):
        super().__init__()
        self.cell = FastRNNCell(8, 64, squash=squash)
        self.head = nn.Linear(64, 10)

    def forward(self, x):                      # (samples, steps, features)
        h = torch.zeros(x.shape[0], 64)
        for t in range(x.shape[1]):
            h = self.cell(x[:, t], h)
        return self.head(h)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = row_sequences()
    model = RowClassifier(squash=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, seed=0):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
