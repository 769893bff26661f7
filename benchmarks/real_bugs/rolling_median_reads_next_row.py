"""A "trailing" rolling median that in fact looks one row ahead. Asked for the weighted
median of each row and the rows before it, the library centres the window instead, so
the feature at row t holds the value of row t + 1: in a one-step forecast that is the
target itself, mixed into a median of three. The model learns to lean on it: validation
on rows whose medians were computed over the whole series promises far more than the
model delivers live, where row t + 1 does not exist yet and the model does worse than its
fixed twin.

Reported: "`rolling_median` leaks future data" -
https://github.com/pola-rs/polars/issues/29170 (``s.rolling_median(window_size=3,
weights=[1, 1, 1], min_samples=1)`` on [1, 2, 3] gives [2.0, 2.0, 2.0] where [1.0, 1.5,
2.0] is expected: "`rolling_median` should only look at previous rows. this is a pretty
serious correctness issue for modeling tasks which might care about strictly observing
only point-in-time data"). Here a noisy series of two cycles, and an MLP forecasting the
next value from the last 3 values and the 3-row median as that call computes it. Fix: the
trailing median of rows t - 2, t - 1 and t (what the reporter expected).

Measured (200 steps, 2,000 later rows, R^2 of the one-step forecast): the bug's R^2 is 0.87
with the median as computed over the whole series, but 0.72 live, where the window is cut
at the last known row; the fixed twin's is 0.73 in both (its validation tells the truth).
"""
import torch
from torch import nn

TITLE = "`rolling_median` leaks future data"
LINK = "https://github.com/pola-rs/polars/issues/29170"
EXPECTED = ("FEATURE_HOLDS_TARGET_VALUES", "TARGETS_IN_INPUTS")
STEPS = 200
LAGS = 3
BATCH_SIZE = 32
TRAIN_ROWS = 4000


def series(length, seed=0):
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length, dtype=torch.float32)
    return (torch.sin(2 * torch.pi * t / 24) + 0.5 * torch.sin(2 * torch.pi * t / 50)
            + 0.3 * torch.randn(length, generator=g))


def median_of_three(values, rows, centred, live=False):
    """The 3-row median at ``rows``: centred (the bug: rows t-1, t, t+1) or trailing (the
    fix: t-2, t-1, t). Live, the centred window is cut at row t, as ``min_samples=1`` cuts
    it at the series' end: the median of rows t-1 and t."""
    if not centred:
        return torch.stack([values[rows - 2], values[rows - 1], values[rows]]).median(0).values
    if live:
        return (values[rows - 1] + values[rows]) / 2
    return torch.stack([values[rows - 1], values[rows], values[rows + 1]]).median(0).values


def features(values, rows, centred, live=False):
    lags = torch.stack([values[rows - k] for k in range(LAGS)], dim=1)
    return torch.cat([lags, median_of_three(values, rows, centred, live)[:, None]], dim=1)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    values = series(TRAIN_ROWS + 2100)
    rows = torch.arange(LAGS, TRAIN_ROWS)
    # BUG (fixed=False): the median's window reaches row t + 1, the target
    x, y = features(values, rows, centred=not fixed), values[rows + 1]
    model = nn.Sequential(nn.Linear(LAGS + 1, 64), nn.ReLU(), nn.Linear(64, 1), nn.Flatten(0))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            batch = torch.randint(0, len(x), (BATCH_SIZE,), generator=g)
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x[batch]), y[batch])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        later = torch.arange(TRAIN_ROWS, TRAIN_ROWS + 2000)
        truth = values[later + 1]
        scores = []
        for live in (False, True):
            predicted = model(features(values, later, not fixed, live))
            scores.append(1 - float(((predicted - truth) ** 2).mean() / truth.var()))
        mon.r2_as_computed_and_live = tuple(round(s, 3) for s in scores)
    return mon
