"""A gated recurrent layer written by hand whose scan loops over the FIRST axis of its
input, ``for x_t in x``, as a scan primitive does (theano.scan walks the leading
dimension): but the batches are (samples, steps, features), so the "time" the recurrence
walks is the batch. Each sample's whole row sequence is one step, the state carried from
one sample to the next holds the previous SAMPLE's rows, not this sample's earlier rows,
and the output read at the last step of a sample only ever saw its last row (and other
samples' last rows). The network still fits the training batches somewhat, the loss falls,
and the classifier answers from one row of eight.

Reported: "A bug in Merlin's RNN implementation." -
https://github.com/CSTR-Edinburgh/merlin/issues/383 ("Theano's `scan` function will loop
through the first dimension ... A dimension transposing operation should be applied before
`scan`"). Here a GRU-style gated cell written by hand (update and reset gates, tanh
candidate, state started at zeros) over the 8x8 digits read as 8 rows of 8 pixels, batches
of 64 samples first, the class read from each sample's last step; Adam 3e-3, 300 steps.

Fix: transpose the batch to (steps, samples, features) before the loop and back after it.

Measured (held-out accuracy, 500 digits, evaluated in one batch): 0.498 with the bug, 0.978
fixed; seeds + 1000: 0.540 vs 0.984.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._ssm337 import accuracy, row_sequences

TITLE = "A bug in Merlin's RNN implementation."
LINK = "https://github.com/CSTR-Edinburgh/merlin/issues/383"
EXPECTED = ("BATCH_MIXING", "INPUT_LAYOUT_SCRAMBLED")
STEPS = 300


class GatedRecurrentLayer(nn.Module):
    def __init__(self, inputs, hidden, time_major_fix=False):
        super().__init__()
        self.hidden, self.time_major_fix = hidden, time_major_fix
        self.W = nn.Parameter(torch.randn(inputs, 3 * hidden) / math.sqrt(inputs))
        self.U = nn.Parameter(torch.randn(hidden, 3 * hidden) / math.sqrt(hidden))
        self.b = nn.Parameter(torch.zeros(3 * hidden))

    def step(self, x_t, h):
        wz, wr, wc = (x_t @ self.W + self.b).chunk(3, dim=-1)
        uz, ur, uc = self.U.split(self.hidden, dim=1)
        z = torch.sigmoid(wz + h @ uz)
        r = torch.sigmoid(wr + h @ ur)
        candidate = torch.tanh(wc + (r * h) @ uc)
        return (1 - z) * h + z * candidate

    def forward(self, x):                      # x: (samples, steps, features)
        if self.time_major_fix:
            x = x.transpose(0, 1)              # the fix: scan over the steps
        h = torch.zeros(x.shape[1], self.hidden)
        outputs = []
        for x_t in x:                          # BUG (unfixed): walks the samples
            h = self.step(x_t, h)
            outputs.append(h)
        out = torch.stack(outputs)
        return out.transpose(0, 1) if self.time_major_fix else out


class RowClassifier(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.rnn = GatedRecurrentLayer(8, 64, time_major_fix=fixed)
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        return self.head(self.rnn(x)[:, -1])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = row_sequences()
    model = RowClassifier(fixed)
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
