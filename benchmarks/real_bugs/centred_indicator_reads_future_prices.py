"""A technical indicator computed with a centred window feeds the coming days' prices
into today's features. The detrended price oscillator subtracts a moving average that
pandas shifts BACK by half its length (``ma.shift(-t)``), so the average at day i covers
days up to i + t: the prices after day i, the very thing a model of the coming days must
predict, are in today's inputs. Training and validation accuracy soar; on live data,
where the days after i do not exist yet, the model is worse than a coin.

Reported: "Future data leak on DPO indicator" -
https://github.com/twopirllc/pandas-ta/issues/60 ("DPO_1 got a massive feature importance
score and any models trained with that indicator had accuracy of 99 to 100% ... when
``center=True`` (the default), this line leaks future data into the past"; the maintainer
corrected the indicator). Here a price series with persistent daily returns (AR(1), 0.5),
and an MLP that predicts whether the close 5 days later is higher from the last 5 returns
and a 20-day DPO. Fix: the corrected, trailing DPO (the price ``t`` days ago minus the moving
average that ends today).

Measured (300 steps; 2,000 later days): the bug's accuracy on later days with the
indicator computed as pandas does (future days included) is 0.87, but 0.43 when it can
only use the days known at prediction time, as live (worse than a coin); the fixed twin's
is 0.59 in both.
"""
import torch
from torch import nn

TITLE = "Future data leak on DPO indicator"
LINK = "https://github.com/twopirllc/pandas-ta/issues/60"
EXPECTED = ("FEATURE_HOLDS_TARGET_VALUES", "TARGETS_IN_INPUTS")
STEPS = 300
LENGTH = 20                      # the DPO's moving-average length
SHIFT = LENGTH // 2 + 1          # [convention] pandas-ta's t = int(0.5 * length) + 1
LAGS = 5
HORIZON = 5                      # predicted: is the close HORIZON days later higher
BATCH_SIZE = 64
TRAIN_DAYS = 6000
PERSISTENCE = 0.5                # the AR(1) coefficient of the daily returns


def closes(days, seed=0):
    """A price whose daily returns are persistent (AR(1), PERSISTENCE)."""
    g = torch.Generator().manual_seed(seed)
    noise = torch.randn(days, generator=g)
    returns = torch.zeros(days)
    for i in range(1, days):
        returns[i] = PERSISTENCE * returns[i - 1] + noise[i]
    return 100 + 0.1 * returns.cumsum(0), returns


def moving_average(close, end):
    """The mean of close[end - LENGTH + 1 .. end] (the trailing window ending at ``end``)."""
    total = torch.cat([torch.zeros(1), close.cumsum(0)])
    return (total[end + 1] - total[end + 1 - LENGTH]) / LENGTH


def dpo(close, days, centred, known_until=None):
    """The DPO at ``days``. Centred (the bug): close[i] - MA ending at i + SHIFT, the
    moving average pandas shifted back; ``known_until``: what a live system has at day i
    (the window cut at day i). Trailing (the fix): close[i - SHIFT] - MA ending at i."""
    if not centred:
        return close[days - SHIFT] - moving_average(close, days)
    if known_until is None:
        return close[days] - moving_average(close, days + SHIFT)
    total = torch.cat([torch.zeros(1), close.cumsum(0)])
    start = days + SHIFT - LENGTH + 1
    return close[days] - (total[days + 1] - total[start]) / (days + 1 - start)


def features(close, returns, days, centred, live=False):
    lags = torch.stack([returns[days - k] for k in range(LAGS)], dim=1)
    indicator = dpo(close, days, centred, known_until=days if live else None)
    return torch.cat([lags, indicator[:, None] / 0.3], dim=1)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    close, returns = closes(TRAIN_DAYS + 2100)
    days = torch.arange(LENGTH + SHIFT, TRAIN_DAYS)
    # BUG (fixed=False): the centred DPO, whose average covers the next SHIFT days
    x = features(close, returns, days, centred=not fixed)
    y = (close[days + HORIZON] > close[days]).float()
    model = nn.Sequential(nn.Linear(LAGS + 1, 32), nn.ReLU(), nn.Linear(32, 1), nn.Flatten(0))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(x), (BATCH_SIZE,), generator=g)
            optimizer.zero_grad()
            loss = nn.functional.binary_cross_entropy_with_logits(model(x[rows]), y[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        later = torch.arange(TRAIN_DAYS, TRAIN_DAYS + 2000)
        truth = close[later + HORIZON] > close[later]
        accuracy = [float(((model(features(close, returns, later, not fixed, live)) > 0)
                           == truth).float().mean()) for live in (False, True)]
        mon.accuracy_as_computed_and_live = tuple(round(a, 3) for a in accuracy)
    return mon
