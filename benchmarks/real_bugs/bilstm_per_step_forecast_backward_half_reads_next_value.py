"""A per-step next-value forecaster built on a bidirectional LSTM: window x1..xT is trained
against x2..xT+1, one target per step, and each step's output is the sum of the forward and
the backward direction. The backward direction at step t has already read x(t+1), the very
value step t must forecast, so the training loss falls by copying it - except at the last
step, the only one that is a real forecast, where the backward half has seen nothing new.
The forecast of the value after the window is what the model learnt least.

Reported: "One layer BiLSTM is not learning" -
https://discuss.pytorch.org/t/one-layer-bilstm-is-not-learning/175731 (nn.LSTM(...,
batch_first=True, bidirectional=True), out.view(batch, seq_len, 2, hidden), fwd + bwd, a
Linear on every step, targets "x1 x2 x3 x4 -> x2 x3 x4 x5"; "it tries to follow the last
step" and the validation result is worse). Here a noisy two-cycle series, windows of 12
steps, a BiLSTM(1, 32) summed over directions with a Linear(32, 1) on every step, Adam for
300 steps of 32 windows; the held-out forecast is the last step's output.
Fix: a forward-only LSTM for a forecaster (the backward direction reads the future).
Harm (held-out next-value MSE of the last step, standardised units; the noise alone
costs about 0.035): 0.0763 vs 0.0646; seeds + 1000: 0.0709 vs 0.0619.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_lstm_forecast import (TRAIN_END, mse, picks, series,
                                                          windows)

TITLE = "One layer BiLSTM is not learning"
LINK = "https://discuss.pytorch.org/t/one-layer-bilstm-is-not-learning/175731"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 300
LAGS = 12


class PerStep(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.directions = 1 if fixed else 2          # BUG when not fixed: bidirectional
        self.hidden = 32
        self.lstm = nn.LSTM(1, 32, batch_first=True, bidirectional=not fixed)
        self.fc = nn.Linear(32, 1)

    def forward(self, x):
        batch, seq_len, _ = x.shape
        out, _ = self.lstm(x)
        out = out.view(batch, seq_len, self.directions, self.hidden).sum(2)   # fwd + bwd
        return self.fc(out)                           # (batch, seq_len, 1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    values = series(seed=0)
    x, _ = windows(values, 0, TRAIN_END, LAGS + 1)    # windows of LAGS + 1 values
    inputs, targets = x[:, :-1], x[:, 1:]             # x1..xT -> x2..xT+1
    x_test, _ = windows(values, TRAIN_END, len(values), LAGS + 1)
    model = PerStep(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            pick = picks(len(inputs))
            optimizer.zero_grad()
            loss = loss_fn(model(inputs[pick]), targets[pick])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_mse = mse(model(x_test[:, :-1])[:, -1], x_test[:, -1])
    return mon
