"""A next-value forecaster built on a bidirectional LSTM and trained sequence to sequence:
the input is the series without its last value, the target the series without its first,
and the output at every step is read from both directions. The backward direction at step t
has already read step t+1 - the value that step is asked to predict - so the network learns
to read the answer off its input. The training loss falls to the noise floor, nothing
errors, and a forecast, where the next value is not yet known, is poor.

Reported: "Is Bidirectional LSTM cheating?" -
https://discuss.pytorch.org/t/is-bidirectional-lstm-cheating/162957 (the poster trains a
bidirectional LSTM on INPUT = [0..N-1] against TARGET = [1..N] to predict the next value at
each step, and asks whether it is cheating, since every step's output combines the forward
pass over the past with the backward pass over the future, the value to predict included.
It is: a forecaster may read the past only, so the fix is a unidirectional LSTM). Here: noisy sums
of two sines of random period (benchmarks/real_bugs/_future_leaks.py, 40 steps), an LSTM with
32 units a direction and a linear read-out, mean squared error, Adam. Fix:
``bidirectional=False``.

Measured (600 steps, batch 32; held-out one-step-ahead mean squared error on 256 series, each
step from the sixth on forecast from the values up to it, as a forecaster runs; the series'
variance is about 0.6, the noise's 0.0025): seed 0, 0.13 for the bug against 0.016 for the
fixed twin (the bug's error with the whole series given, as in training: 0.0053); seeds
shifted by 1000, 0.14 against 0.018 (0.0055).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._future_leaks import periodic_series

TITLE = "Is Bidirectional LSTM cheating?"
LINK = "https://discuss.pytorch.org/t/is-bidirectional-lstm-cheating/162957"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 600


class Forecaster(nn.Module):
    def __init__(self, bidirectional, hidden=32):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, batch_first=True, bidirectional=bidirectional)
        self.out = nn.Linear(hidden * (2 if bidirectional else 1), 1)

    def forward(self, x):                      # (B, T, 1) -> the next value at each step
        h, _ = self.lstm(x)
        return self.out(h)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train = periodic_series(4096, seed=0)
    held_out = periodic_series(256, seed=1)
    model = Forecaster(bidirectional=not fixed)      # BUG: bidirectional=True
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    order = torch.randperm(len(train))
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            start = (step * 32) % len(train)
            series = train[order[start:start + 32]]
            loss = nn.functional.mse_loss(model(series[:, :-1]), series[:, 1:])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        errors = []
        for t in range(1, held_out.shape[1]):       # the values 0..t-1 are known
            guess = model(held_out[:, :t])[:, -1]
            errors.append(((guess - held_out[:, t]) ** 2).mean())
        mon.held_out_mse = torch.stack(errors[4:]).mean().item()   # from 5 known values on
        whole = model(held_out[:, :-1])
        mon.held_out_mse_whole_series = ((whole - held_out[:, 1:]) ** 2).mean().item()
    return mon
