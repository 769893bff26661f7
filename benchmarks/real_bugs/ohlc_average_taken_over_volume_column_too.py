"""A next-day stock forecaster in the style of a first LSTM tutorial: the series it learns
is the day's OHLC average, taken as the mean of every column of the price table - and the
table still holds the Volume column. Volume is in the tens of millions where the prices are
around a hundred, so the "OHLC average" is a fifth of the day's volume with the price lost
in its rounding. The series is min-max scaled like any other, the loss falls, and the model
forecasts tomorrow's volume; de-normalised, its "prices" are millions of dollars, and they
do not follow the stock at all.

Reported: "Update StockPricePrediction.py" -
https://github.com/NourozR/Stock-Price-Prediction-LSTM/pull/10 ("I also found an anomaly
that the ohlc_avg was in millions, so I removed 'volume' column from the table for making
the average"). Here 1600 trading days of a synthetic stock (a random walk around 100 with
a daily range) and its volume (log-normal, persistent, around 50 million), the average of
the table's columns min-max scaled, one day in, the next day out (the tutorial's step size
of 1), two stacked LSTMs (32 and 16 units, batch_first) and a linear head, Adam, the first
75% of the days for training.
Fix: drop the Volume column before averaging (the mean of Open, High, Low and Close).

Measured (held-out next-day OHLC average, forecast de-normalised with the scaler, against
the stock's real OHLC average): correlation 0.10 with the bug, 0.996 fixed (RMSE $1.2e7
against $1.25); seeds + 1000: -0.06 vs 0.988 (RMSE $9.2e6 against $1.21).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd

TITLE = "Update StockPricePrediction.py"
LINK = "https://github.com/NourozR/Stock-Price-Prediction-LSTM/pull/10"
EXPECTED = ("INPUT_CHANNELS_ON_DIFFERENT_SCALES", "UNNORMALIZED_INPUTS")
STEPS = 300
DAYS = 1600
COLUMNS = ("Open", "High", "Low", "Close", "Volume")


def price_table(rng):
    """(DAYS, 5): Open, High, Low, Close around 100 and Volume around 5e7."""
    close = 100 * np.exp(np.cumsum(rng.normal(0, 0.012, DAYS)))
    open_ = np.r_[close[0], close[:-1]] * np.exp(rng.normal(0, 0.004, DAYS))
    high = np.maximum(open_, close) * (1 + np.abs(rng.normal(0, 0.006, DAYS)))
    low = np.minimum(open_, close) * (1 - np.abs(rng.normal(0, 0.006, DAYS)))
    log_volume = np.zeros(DAYS)
    for t in range(1, DAYS):
        log_volume[t] = 0.9 * log_volume[t - 1] + rng.normal(0, 0.3 * np.sqrt(1 - 0.81))
    volume = 5e7 * np.exp(log_volume)
    return np.stack([open_, high, low, close, volume], axis=1)


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm1 = nn.LSTM(1, 32, batch_first=True)
        self.lstm2 = nn.LSTM(32, 16, batch_first=True)
        self.head = nn.Linear(16, 1)

    def forward(self, x):
        h, _ = self.lstm1(x)
        h, _ = self.lstm2(h)
        return self.head(h[:, -1])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    table = price_table(np.random.default_rng(0))
    prices = table[:, :4].mean(axis=1)                 # the stock's real OHLC average
    if fixed:
        ohlc_avg = table[:, :4].mean(axis=1)           # Volume dropped first
    else:
        ohlc_avg = table.mean(axis=1)                  # BUG: the Volume column averaged in
    low, high = ohlc_avg.min(), ohlc_avg.max()         # the tutorial's MinMaxScaler
    scaled = (ohlc_avg - low) / (high - low)
    x = torch.tensor(scaled[:-1, None, None], dtype=torch.float32)   # (N, 1 step, 1)
    y = torch.tensor(scaled[1:, None], dtype=torch.float32)
    train = int(0.75 * len(x))
    model = Forecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(0, train, (32,))
            loss = loss_fn(model(x[index]), y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        forecast = model(x[train:]).numpy().ravel() * (high - low) + low   # de-normalised
    actual = prices[train + 1:]
    mon.held_out_correlation = float(np.corrcoef(forecast, actual)[0, 1])
    mon.held_out_rmse = float(np.sqrt(np.mean((forecast - actual) ** 2)))
    return mon
