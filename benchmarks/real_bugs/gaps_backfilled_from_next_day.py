"""Daily price features with gaps (days a data feed skipped) filled backwards: pandas'
``fillna(method="bfill")`` copies the next day's close into each missing day, so on those
days the window's last close is tomorrow's, and the change it shows holds the very return
the model is asked to forecast. The model learns to lean on that leak in training; live,
where tomorrow is not known and a gap can only repeat yesterday's close, it forecasts worse
than a model that never saw it.

Reported: "Look-ahead bias in FeatureEngineer: fillna(mode='bfill')" -
https://github.com/AI4Finance-Foundation/FinRL/issues/189 (labelled bug, fixed: "filling
missing values by copying values coming from next positions in the series is effectively
looking in the future"). Here a price with weak momentum whose closes are missing on 20% of
days, windows of the last 10 daily log-changes of the filled close, forecasting the next
day's return (standardised) with an MLP. On the last 20% of the series with the gaps filled
forwards (what a live forecast can do), MSE: 1.004 when trained on back-filled gaps against
0.978 when trained on forward-filled ones, while the back-filled run's training loss reads
0.91 against 0.98 (the leak flatters training by 7% and costs live accuracy).
Fix: fill forwards (``ffill``) only.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd

TITLE = "Look-ahead bias in FeatureEngineer: fillna(mode='bfill')"
LINK = "https://github.com/AI4Finance-Foundation/FinRL/issues/189"
EXPECTED = ("FEATURE_HOLDS_TARGET_VALUES", "TARGETS_IN_INPUTS")
STEPS = 300
WINDOW = 10
MISSING = 0.2


def closes(length=4000, seed=0):
    """(true log closes, the feed's log closes with NaN on MISSING of the days)."""
    rng = np.random.default_rng(seed)
    shocks = 0.01 * rng.standard_normal(length)
    returns = np.zeros(length)
    for t in range(1, length):
        returns[t] = 0.15 * returns[t - 1] + shocks[t]
    log_close = np.cumsum(returns)
    feed = log_close.copy()
    gaps = rng.random(length) < MISSING
    gaps[[0, -1]] = False
    feed[gaps] = np.nan
    return log_close, feed


def filled(feed, backwards):
    """The feed with each gap filled from the next known day (bfill) or the last (ffill)."""
    values, index = feed.copy(), np.arange(len(feed))
    known = ~np.isnan(feed)
    if backwards:
        # BUG (not fixed): a missing day takes the next day's close
        source = np.flip(np.minimum.accumulate(np.flip(np.where(known, index, len(feed)))))
    else:
        source = np.maximum.accumulate(np.where(known, index, 0))
    return values[source]


def examples(feature_close, true_close):
    """Windows of the last WINDOW daily changes of the feature close, and the next day's
    true return (both divided by the returns' std)."""
    changes = np.diff(feature_close, prepend=feature_close[0])
    target = np.diff(true_close, append=true_close[-1])      # return from day t to t + 1
    scale = target.std()
    starts = np.arange(1, len(changes) - WINDOW - 1)
    x = changes[starts[:, None] + np.arange(WINDOW)] / scale
    y = target[starts + WINDOW - 1] / scale
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.float32)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    true_close, feed = closes()
    x, y = examples(filled(feed, backwards=not fixed), true_close)
    x_live, y_live = examples(filled(feed, backwards=False), true_close)
    cut = int(0.8 * len(x))
    model = torch.nn.Sequential(torch.nn.Linear(WINDOW, 64), torch.nn.ReLU(),
                                torch.nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(0, cut, (64,), generator=g)
            optimizer.zero_grad()
            loss = F.mse_loss(model(x[index]).squeeze(1), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_mse = F.mse_loss(model(x_live[cut:]).squeeze(1), y_live[cut:]).item()
        mon.held_out_train_loss = F.mse_loss(model(x[:cut]).squeeze(1), y[:cut]).item()
    return mon
