"""A Linear Recurrent Unit written by hand, its state update typed as in the paper's
matrix form, ``Lambda @ state``: but Lambda is stored as the VECTOR of the diagonal's
complex eigenvalues, so ``@`` is a dot product. Every step the whole state collapses to
one complex number (sum_i lambda_i h_i), which is added to every unit; the diagonal
recurrence, where each unit decays at its own rate and keeps its own memory, is gone. The
effective recurrence is the rank-one matrix 1 lambda^T, whose one eigenvalue sum_i lambda_i
lies far outside the unit circle: the state of the earlier rows grows step after step and
swamps what the last row adds, while the loss still falls.

Reported: "bug diag recurrence" - https://github.com/Gothos/LRU-pytorch/pull/2 ("both
`Lambda` and `self.state` are vectors, and taking the dot product collapses them"; fix:
``Lambda*self.state``). Here the LRU of that repository's pattern (nu/theta/gamma
log-parametrised eigenvalues drawn in the ring r in [0, 1], phases in [0, 2 pi], complex
B and C, real D skip) over the 8x8 digits read as 8 rows of 8 pixels, the state kept as
(units, batch) columns, the class read from the last step through a GELU and a linear
head; Adam 3e-3, 300 steps of 64.

Fix: ``state = Lambda[:, None] * state + ...`` - the elementwise diagonal update.

Measured (held-out accuracy, 500 digits): 0.608 with the bug, 0.982 fixed; seeds + 1000:
0.396 vs 0.974.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._ssm337 import accuracy, row_sequences

TITLE = "bug diag recurrence"
LINK = "https://github.com/Gothos/LRU-pytorch/pull/2"
EXPECTED = ("EXPLODING_ACTIVATIONS",)
STEPS = 300


class LRU(nn.Module):
    def __init__(self, inputs, outputs, states, r_min=0.0, r_max=1.0, max_phase=6.283,
                 diagonal=False):
        super().__init__()
        self.diagonal = diagonal
        u1, u2 = torch.rand(states), torch.rand(states)
        self.nu_log = nn.Parameter(torch.log(-0.5 * torch.log(
            u1 * (r_max + r_min) * (r_max - r_min) + r_min ** 2)))
        self.theta_log = nn.Parameter(torch.log(max_phase * u2))
        modulus = torch.exp(-torch.exp(self.nu_log.detach()))
        self.gamma_log = nn.Parameter(torch.log(torch.sqrt(1 - modulus ** 2)))
        self.B_re = nn.Parameter(torch.randn(states, inputs) / math.sqrt(2 * inputs))
        self.B_im = nn.Parameter(torch.randn(states, inputs) / math.sqrt(2 * inputs))
        self.C_re = nn.Parameter(torch.randn(outputs, states) / math.sqrt(states))
        self.C_im = nn.Parameter(torch.randn(outputs, states) / math.sqrt(states))
        self.D = nn.Parameter(torch.randn(outputs, inputs) / math.sqrt(inputs))

    def forward(self, u):                      # u: (batch, steps, inputs)
        modulus = torch.exp(-torch.exp(self.nu_log))
        phase = torch.exp(self.theta_log)
        Lambda = torch.complex(modulus * torch.cos(phase), modulus * torch.sin(phase))
        gamma = torch.exp(self.gamma_log)[:, None]
        B, C = torch.complex(self.B_re, self.B_im), torch.complex(self.C_re, self.C_im)
        state = torch.zeros(len(Lambda), u.shape[0], dtype=B.dtype)     # (units, batch)
        outputs = []
        for t in range(u.shape[1]):
            drive = gamma * (B @ u[:, t].T.to(B.dtype))
            if self.diagonal:
                state = Lambda[:, None] * state + drive
            else:                              # BUG: a dot product over the units
                state = Lambda @ state + drive
            outputs.append((C @ state).real.T + u[:, t] @ self.D.T)
        return torch.stack(outputs, dim=1)


class RowClassifier(nn.Module):
    def __init__(self, diagonal):
        super().__init__()
        self.lru = LRU(8, 64, 64, diagonal=diagonal)
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        return self.head(F.gelu(self.lru(x)[:, -1]))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = row_sequences()
    model = RowClassifier(diagonal=fixed)
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
