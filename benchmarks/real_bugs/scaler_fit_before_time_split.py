"""A price series min-max scaled before it is split in time: the scaler's minimum and
maximum are taken over the whole series, validation stretch included, so the training
windows are scaled with the range of prices the model is later tested on. On a rising
series the training data then never reaches the top of the [0, 1] range while the
validation data ends exactly on it: the held-out period has set the scale of the data the
model learns from, and its validation error is measured inside a range it helped choose.

Reported: "Darts Examples- NBeats" - https://github.com/unit8co/darts/issues/573 ("you have
scaled first ... and then in Cell 6 split the series into train and val ... wont this
introduce Data Leakage (shouldn't we split first and then scale)"; the maintainer: "You are
correct about the scaling"; the reporter saw the validation MAPE change with the order).
Here daily sales with a yearly cycle growing 8% a year and a weekly pattern, windows of 30
days forecasting the next 7 by an MLP (N-BEATS's fully connected stack, one block),
validated on the last 20% every 25 steps. The training windows reach 0.96 of the range at
most, the validation ones end on 1.0 exactly. Validation MAPE in sales: 2.86% against 2.85%
with the scaler fitted on the training stretch: this small MLP is not flattered measurably;
the flaw is that the held-out stretch chose the training data's scale, so the number is no
longer a forecast of unseen data (the harm the report names is the leak itself).
Fix: split first, fit the scaler on the training stretch, transform both with it.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd

TITLE = "Darts Examples- NBeats"
LINK = "https://github.com/unit8co/darts/issues/573"
EXPECTED = ("SCALER_FIT_ON_HELD_OUT_ROWS",)
STEPS = 300
WINDOW = 30
HORIZON = 7
VALIDATE_EVERY = 25


def prices(length=4 * 365, seed=0):
    """Daily sales: a yearly cycle growing 8% a year, a weekly pattern, noise."""
    rng = np.random.default_rng(seed)
    t = np.arange(length)
    level = 100 * (1.08 ** (t / 365)) * (1 + 0.25 * np.sin(2 * np.pi * t / 365))
    weekly = 1 + 0.05 * np.sin(2 * np.pi * t / 7)
    return level * weekly * (1 + 0.03 * rng.standard_normal(length))


def windows(values):
    """Every window of WINDOW values (stride 1) and the HORIZON values after it."""
    values = torch.tensor(values, dtype=torch.float32)
    starts = torch.arange(len(values) - WINDOW - HORIZON + 1)
    x = values[starts[:, None] + torch.arange(WINDOW)]
    return x, values[starts[:, None] + WINDOW + torch.arange(HORIZON)]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    series = prices()
    cut = int(0.8 * len(series))
    fitted_on = series[:cut] if fixed else series
    # BUG (not fixed): the scaler's range is taken over the whole series, validation too
    low, high = fitted_on.min(), fitted_on.max()
    scaled = (series - low) / (high - low)
    x_train, y_train = windows(scaled[:cut])
    x_val, y_val = windows(scaled[cut - WINDOW:])
    model = torch.nn.Sequential(torch.nn.Linear(WINDOW, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, HORIZON))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for done in range(1, steps + 1):
            index = torch.randint(0, len(x_train), (64,), generator=g)
            optimizer.zero_grad()
            loss = F.mse_loss(model(x_train[index]), y_train[index])
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % VALIDATE_EVERY == 0:
                with torch.no_grad():
                    val_loss = F.mse_loss(model(x_val), y_val)
            mon.step(loss, val_loss=val_loss)
    with torch.no_grad():
        to_price = lambda v: v * (high - low) + low
        error = (to_price(model(x_val)) - to_price(y_val)).abs() / to_price(y_val)
    mon.val_mape = error.mean().item()
    return mon
