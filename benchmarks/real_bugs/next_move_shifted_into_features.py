"""An up/down classifier for the next move of a price reads, among its features, the
price change "lagged to avoid look-ahead bias" with ``diff().shift(-1)``: shift(-1)
moves the series one step BACK, so at time t the feature is the change from t to t + 1,
the very move whose sign is the label. Accuracy goes to nearly 100 %; the feature cannot
exist when the prediction is made.

Reported: "Possible data leakage?" -
https://github.com/spawnaga/market_direction_prediction/issues/1 (the line under the
comment "lagged to avoid look-ahead bias" does "the opposite of what the comment above is
claiming, since `shift(-1)` is moving it one day *ahead*"). Here a price whose changes
carry some momentum (an AR(1) on the returns), an MLP on the 8 last changes plus the
shifted movement column. Measured (seed 0, 300 steps): mean training loss of
the last 20 steps 0.062 against 0.61 for the fixed twin (chance is 0.69). Fix: ``shift(1)`` (the
last known change), which is what the comment meant.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = "Possible data leakage?"
LINK = "https://github.com/spawnaga/market_direction_prediction/issues/1"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 300
LAGS = 8


def returns(length=4000, momentum=0.5, seed=0):
    """Price changes with momentum: each change is half the last one plus noise."""
    g = torch.Generator().manual_seed(seed)
    noise = torch.randn(length, generator=g)
    change = torch.zeros(length)
    for i in range(1, length):
        change[i] = momentum * change[i - 1] + noise[i]
    return change


def table(shift):
    """Rows at time t: the LAGS last changes and the movement column
    ``diff().shift(shift)`` (the change into t - shift); label 1 if the next change, from
    t to t + 1, is up."""
    change = returns()        # change[t] = price[t] - price[t - 1]
    t = torch.arange(LAGS + 2, len(change) - 2)
    lags = torch.stack([change[t - k] for k in range(LAGS)], dim=1)
    movement = change[t - shift]    # diff().shift(shift) at t
    up = (change[t + 1] > 0).float()
    return torch.cat([lags, movement[:, None]], dim=1), up


def batches(x, y, steps, batch_size=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        rows = torch.randint(0, len(x), (batch_size,), generator=g)
        yield x[rows], y[rows]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    # BUG when not fixed: shift(-1) puts the change from t to t + 1 (the label's move)
    # in the features
    x, y = table(shift=1 if fixed else -1)
    model = nn.Sequential(nn.Linear(LAGS + 1, 64), nn.ReLU(), nn.Linear(64, 1), nn.Flatten(0))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.functional.binary_cross_entropy_with_logits,
                         batches(x, y, steps), **watch)
