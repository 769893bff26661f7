"""A next-day forecaster for a stock (an LSTM over windows of daily features) whose output
is a column, (60, 1), scored by nn.MSELoss against a flat target vector, (60,). On the
PyTorch the report was written with this stopped with an error; on current PyTorch the two
shapes broadcast to a (60, 60) table - every prediction against every target of the batch -
with only a UserWarning, so the run goes on and the loss falls. The loss a table rewards is
the batch's mean target for every row: the forecaster learns to answer about the same
number whatever the window holds.

Reported: "When I was running, there was a problem." -
https://github.com/mlpanda/DeepLearning_Financial/issues/2 ("input and target shapes do
not match: input [60 x 1], target [60]"; the reporter's fix: "loss =
criterion(out.view(len(target)), target)"). Here 2400 days of an asset whose daily returns
have momentum (AR(1), coefficient 0.4), five features a day (the last return and four
moving averages of returns, standardised on the training days), windows of 10 days, a
one-layer LSTM (batch_first) and a linear head, Adam, batches of 60, the last 25% of the
days held out.
Fix: out.view(len(target)) - the prediction flattened to the target's shape.

Measured (held-out next-day direction accuracy): 0.510 with the bug, 0.603 fixed; seeds +
1000: 0.507 vs 0.655 (the AR(1) ceiling is ~0.63).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._fin import TRAIN_FRACTION, ar_returns, direction_accuracy, tensor

TITLE = "When I was running, there was a problem."
LINK = "https://github.com/mlpanda/DeepLearning_Financial/issues/2"
EXPECTED = ("LOSS_BROADCAST_OVER_BATCH", "LOSS_SHAPE_MISMATCH")
STEPS = 300
DAYS, WINDOW, BATCH = 2400, 10, 60


class Forecaster(nn.Module):
    def __init__(self, features=5, hidden=32):
        super().__init__()
        self.lstm = nn.LSTM(features, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        h, _ = self.lstm(x)
        return self.out(h[:, -1])                  # (batch, 1)


def features(returns):
    """(days, 5): the day's return and its 3-, 5-, 10- and 20-day trailing means."""
    columns = [returns]
    for span in (3, 5, 10, 20):
        kernel = np.ones(span) / span
        columns.append(np.convolve(returns, kernel)[:len(returns)])
    return np.stack(columns, axis=1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    returns = ar_returns(DAYS, phi=0.4, scale=0.01, rng=rng)
    table = features(returns)
    cut_day = int(TRAIN_FRACTION * DAYS)
    mean, std = table[:cut_day].mean(0), table[:cut_day].std(0)
    table = (table - mean) / std
    target = returns / returns[:cut_day].std()
    ends = np.arange(20 + WINDOW, DAYS)            # the window ends the day before `end`
    x = tensor(np.stack([table[e - WINDOW:e] for e in ends]))
    y = tensor(target[ends])                       # flat: (N,)
    train = int(np.searchsorted(ends, cut_day))
    model = Forecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    criterion = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(0, train, (BATCH,))
            out = model(x[index])
            if fixed:
                loss = criterion(out.view(len(index)), y[index])
            else:
                loss = criterion(out, y[index])    # BUG: (60, 1) against (60,)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        predicted = model(x[train:]).numpy().ravel()
    mon.held_out_direction_accuracy = direction_accuracy(predicted, returns[ends[train:]])
    return mon
