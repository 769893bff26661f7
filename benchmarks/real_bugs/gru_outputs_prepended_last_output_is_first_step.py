"""A GRU written by hand (GRU-D style: one ``step`` per reading, the states collected in a
loop) whose loop PREPENDS each new state to the outputs, ``outputs = cat((h_t, outputs),
1)``, so the outputs run backwards in time, and whose forecaster then reads the "last"
output, ``outputs[:, -1]`` - which is now the state after the FIRST reading. The network
forecasts the next value of the series from one reading taken a whole window earlier;
everything has the right shape, the loss falls to about the readings' variance and stays
there, nothing errors.

Reported: "Hidden states sequence order" - https://github.com/zhiyongc/GRU-D/issues/5
("hidden is appended to the left of the outputs variable, which reverses the order (on
the time dimension) of the hidden states of the GRU", GRUD.py; the model's
``output_last`` option then returned ``outputs[:, -1, :]``; the maintainer fixed it).
Here windows of 12 readings of a noisy sine, each with its own amplitude and phase
(benchmarks/real_bugs/_rnn170.py); a GRU cell written by hand (update and reset gates, 32
units) stepped over the window, a linear forecaster of the next reading on the last
output; Adam 3e-3, batch 64, fresh windows every step. Fix: append (``cat((outputs,
h_t), 1)``), so ``outputs[:, -1]`` is the state after the last reading.

Measured (held-out mean squared error of the next-reading forecast on 1,000 fresh windows;
the held-out next readings' variance, what predicting their mean scores, 0.54 for both
seeds, the noise's 0.01): seed 0, 0.54 for the bug against 0.013 for the fixed twin; seeds
shifted by 1000, 0.54 against 0.015. The output the bug run reads is the state after one
step from h = 0, where the reset gate multiplies zeros: its layer gets no gradient at all
and watch says NO_GRADIENT on it (a symptom; it does not say which output is read).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._rnn170 import sine_windows

TITLE = "Hidden states sequence order"
LINK = "https://github.com/zhiyongc/GRU-D/issues/5"
EXPECTED = ("RNN_READ_BEFORE_RECURRENCE",)
STEPS = 500
WINDOW, BATCH, HIDDEN = 12, 64, 32


class HandGRU(nn.Module):
    def __init__(self, inputs, hidden, fixed):
        super().__init__()
        self.fixed, self.hidden = fixed, hidden
        self.update = nn.Linear(inputs + hidden, hidden)
        self.reset = nn.Linear(inputs + hidden, hidden)
        self.candidate = nn.Linear(inputs + hidden, hidden)

    def step(self, x, h):
        both = torch.cat([x, h], dim=1)
        z = torch.sigmoid(self.update(both))
        r = torch.sigmoid(self.reset(both))
        h_tilde = torch.tanh(self.candidate(torch.cat([x, r * h], dim=1)))
        return (1 - z) * h + z * h_tilde

    def forward(self, x):                  # x: (batch, steps, inputs)
        h = x.new_zeros(x.shape[0], self.hidden)
        outputs = None
        for t in range(x.shape[1]):
            h = self.step(x[:, t], h)
            if outputs is None:
                outputs = h.unsqueeze(1)
            elif self.fixed:
                outputs = torch.cat((outputs, h.unsqueeze(1)), 1)
            else:
                outputs = torch.cat((h.unsqueeze(1), outputs), 1)   # BUG: prepended
        return outputs


class Forecaster(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.gru = HandGRU(1, HIDDEN, fixed)
        self.forecast = nn.Linear(HIDDEN, 1)

    def forward(self, x):
        return self.forecast(self.gru(x)[:, -1]).squeeze(-1)    # the "last" output


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = sine_windows(steps * BATCH, WINDOW, rng)
    x_test, y_test = sine_windows(1000, WINDOW, rng)
    model = Forecaster(fixed)
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
        mon.held_out_variance = y_test.var().item()
    return mon
