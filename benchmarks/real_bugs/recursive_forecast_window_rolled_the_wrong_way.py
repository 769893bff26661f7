"""A recursive forecast that advances its input window with ``np.roll(window, 1)`` and then
writes the new prediction into the last slot. Rolling by +1 moves every row one place
LATER and wraps the newest value round to the front: the window becomes [newest, oldest,
..., third newest, prediction] - the second newest value is lost, the newest sits where the
model expects the oldest, and every further step scrambles the order more. The model and its
training are fine (healthy loss, gradients and one-step fit), the window keeps its shape and
the forecast stays in range, so nothing errors; the multi-step forecast is simply worse.

Reported: "Fix forecasting for neural nets" - https://github.com/aildnont/water-forecast/pull/5
(the water-consumption forecaster's NN ``forecast()`` rolled the recent-data window forward,
``np.roll(x, 1, axis=0)``, before setting the last row to the prediction: "At each time step
of the forecast, it was moving the recent data points forward instead of backwards"; the PR
fixed it to roll backwards, -1, so the oldest row is the one overwritten). Here a two-cycle
synthetic series (periods 12 and 40, noise), a scaler fitted on the first 1000 steps, an MLP
on 24 lags trained with Adam for 800 steps, and a 12-step recursive forecast from each of 52
held-out origins. Fix: ``np.roll(window, -1)``.

Measured (held-out 12-step recursive forecast RMSE, standardised units; the series' std is
about 1): seed 0: 1.41 with the bug against 0.15 for the fixed twin; seeds shifted by 1000:
1.41 against 0.14.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._ts190 import (HORIZON, LAGS, TRAIN_END, forecaster,
                                         recursive_rmse, scale, series, train, windows)

TITLE = "Fix forecasting for neural nets"
LINK = "https://github.com/aildnont/water-forecast/pull/5"
EXPECTED = ("RECURSIVE_WINDOW_MISORDERED",)
STEPS = 800


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    np.random.seed(0)
    data = scale(series(0))
    x, y = windows(data, 0, TRAIN_END)
    model = forecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        train(model, x, y, steps, mon, optimizer)

    def forecast(values, origin):
        window = values[origin - LAGS:origin, 0].copy()
        out = []
        with torch.no_grad():
            for _ in range(HORIZON):
                pred = float(model(torch.tensor(window[None]))[0, 0])
                out.append(pred)
                # BUG: +1 moves the rows later and wraps the newest to the front
                window = np.roll(window, -1 if fixed else 1)
                window[-1] = pred        # the prediction becomes the latest point
        return out

    model.eval()
    mon.held_out_recursive_rmse = recursive_rmse(forecast, data)
    return mon
