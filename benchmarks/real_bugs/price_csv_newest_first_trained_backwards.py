"""A stock forecaster trained on a price file that lists its days newest first (as some
downloads do), read top to bottom without sorting by date: every window then runs backwards
in time and its "next" value is the day BEFORE the window. The model learns to tell
yesterday from the days that followed it; the held-out split, the last 10% of the rows, is
the OLDEST stretch of history, so it agrees and the loss looks fine. Asked to forecast
forward, it predicts the mirror image of how the stock moves: this stock climbs in small
steps and falls in sharp drops, and the model trained backwards expects small declines
after sharp jumps.

Reported: "The \"Time-reversed\" Problem of Some Crawled Data" -
https://github.com/lilianweng/stock-rnn/issues/13 ("the latest entries of data were put on
the top of the DataFrame ... we were using the earliest 10% for test instead of the latest
10%"). Here 2000 days of a synthetic stock that rises ~0.4% a day with noise and loses
~8% in one day every 20-24 days, the file newest first; daily returns in percent (each price
over the one before it in the file, as the tutorial's normalisation does), windows of 30, an
LSTM (batch_first) and a linear head, Adam, the last 10% of the windows validated every 25
steps. The held-out test is the 500 days that came after the file was written, forecast
forward one day at a time.
Fix: sort the rows by date (oldest first) before cutting windows.

Measured (held-out next-day MSE, percent squared, on the 500 later days): 3.82 with the bug,
2.44 fixed; seeds + 1000: 3.14 vs 2.12 (forecasting 0 every day gives 3.22: the model
trained backwards is worse than no model).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd

TITLE = "The \"Time-reversed\" Problem of Some Crawled Data"
LINK = "https://github.com/lilianweng/stock-rnn/issues/13"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 300
DAYS, LATER, WINDOW = 2000, 500, 30


def stairs_up_elevator_down(length, rng):
    """Daily prices: +0.4% a day on average (noise 0.6%), and a one-day drop of about 8%
    whenever a climb of 20-24 days ends."""
    returns = rng.normal(0.004, 0.006, length)
    day = int(rng.integers(20, 25))
    while day < length:
        returns[day] = rng.normal(-0.08, 0.01)
        day += int(rng.integers(20, 25))
    return 100 * np.exp(np.cumsum(returns))


def windows(prices):
    """Percent returns of consecutive rows, cut into (N, WINDOW, 1) inputs and (N, 1) next
    values."""
    r = 100 * (prices[1:] / prices[:-1] - 1)
    x = np.stack([r[i:i + WINDOW] for i in range(len(r) - WINDOW)])
    y = r[WINDOW:]
    return (torch.tensor(x[:, :, None], dtype=torch.float32),
            torch.tensor(y[:, None], dtype=torch.float32))


class Forecaster(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    prices = stairs_up_elevator_down(DAYS + LATER, np.random.default_rng(0))
    rows = prices[:DAYS][::-1]                  # the downloaded file: newest day first
    if fixed:
        rows = rows[::-1]                       # sorted by date, oldest first
    # BUG (fixed=False): the rows used in file order, newest first
    x, y = windows(np.ascontiguousarray(rows))
    cut = int(0.9 * len(x))
    model = Forecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(1, steps + 1):
            index = torch.randint(0, cut, (64,))
            loss = loss_fn(model(x[index]), y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % 25 == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = loss_fn(model(x[cut:]), y[cut:]).item()
                model.train()
            mon.step(loss, val_loss=val_loss)
    # the days after the file: forecast forward, one day at a time
    lx, ly = windows(prices[DAYS - WINDOW - 1:])
    model.eval()
    with torch.no_grad():
        mon.held_out_mse = float(loss_fn(model(lx), ly))
    mon.held_out_zero_forecast_mse = float((ly ** 2).mean())
    return mon
