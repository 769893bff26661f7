"""A time-series regressor whose network ends in ``Linear(..., 1)`` and emits (B, 1), trained
against targets of shape (B,): ``MSELoss`` broadcasts the pair into a (B, B) table of
every prediction against every target, only B of its B*B entries real residuals, so the
gradient pulls every prediction towards the batch's mean target and the network learns
little of the series it reads.

Reported: "[BUG] BaseDeepRegressorTorch mishandles (batch, 1) network output in loss and
predict" - https://github.com/sktime/sktime/issues/10931 ("`BaseDeepRegressorTorch` yields
targets of shape `(batch_size,)`, but four of the torch regressor networks end in
`Linear(..., 1)` and emit `(batch_size, 1)` ... `self._criterion(y_pred, outputs)`
broadcasts `(B, 1)` against `(B,)` into a `(B, B)` all-pairs matrix ... this is a wrong
training signal"; labelled bug, closed). Here an FCN-style Conv1d regressor (two conv
blocks, global average pooling, ``Linear(32, 1)``) reads noisy 2-channel series of 40 steps
and predicts a standardised quantity of each series (its first channel's frequency plus
its second channel's amplitude). Fix: ``y_pred.squeeze(-1)`` before the criterion.

Harm (held-out R^2, bug vs fixed): -0.02 vs 0.98; seeds + 1000: 0.01 vs 0.98.
"""
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._shape_slips import minibatches, record

TITLE = ("[BUG] BaseDeepRegressorTorch mishandles (batch, 1) network output in loss and "
         "predict")
LINK = "https://github.com/sktime/sktime/issues/10931"
EXPECTED = ("LOSS_BROADCAST_OVER_BATCH", "LOSS_SHAPE_MISMATCH")
STEPS = 200
N, HELD_OUT, LENGTH = 1200, 300, 40


def series(n):
    """(n, 2, LENGTH) noisy series and their (n,) target."""
    t = torch.arange(LENGTH, dtype=torch.float32)
    freq = 0.1 + 0.4 * torch.rand(n, 1)
    amp = 0.5 + 1.5 * torch.rand(n, 1)
    phase = 2 * math.pi * torch.rand(n, 2)
    x = torch.stack([torch.sin(freq * t + phase[:, :1]),
                     amp * torch.sin(0.3 * t + phase[:, 1:])], dim=1)
    x = x + 0.2 * torch.randn_like(x)
    y = (freq.squeeze(1) - 0.3) / 0.115 + (amp.squeeze(1) - 1.25) / 0.43
    return x, y


def fcn():
    return nn.Sequential(nn.Conv1d(2, 32, 7, padding=3), nn.BatchNorm1d(32), nn.ReLU(),
                         nn.Conv1d(32, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU(),
                         nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(32, 1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = series(N)
    x_train, y_train, x_test, y_test = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], \
        y[-HELD_OUT:]
    model = fcn()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    criterion = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in minibatches(len(x_train), steps, batch_size=32):
            y_pred = model(x_train[index])                 # (B, 1)
            if fixed:
                y_pred = y_pred.squeeze(-1)
            optimizer.zero_grad()
            loss = criterion(y_pred, y_train[index])       # BUG: (B, 1) against (B,)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        pred = model(x_test).squeeze(-1)
    record("held-out R^2", 1 - ((pred - y_test) ** 2).mean() / y_test.var(unbiased=False))
    return mon
