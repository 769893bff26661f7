"""A recursive (autoregressive) multi-step forecast that, at each step, first appends a
placeholder to the history at the date it is about to predict - 0.0 on the first step, the
last forecast afterwards - and only then builds that date's lags. The first lag-1 input of
the recursion is therefore a made-up 0.0 (the training mean), and every later forecast is
written one date too late, so each step reads its predecessor's predecessor as its latest
value. The one-step model trained correctly (healthy loss, healthy training fit); only the
feedback of its predictions is wrong, and the forecast still looks like a plausible curve.

Reported: "Recursive Strategy Bug" - https://github.com/madagra/energy-ts-analysis/issues/4
("You're actually inserting the first prediction (N=1) on the recursive strategy with 0.0
value, instead of actually finding the prediction (N=1) value. This will affect the lags").
Here the two-cycle synthetic series of ``_ts190`` (periods 12 and 40, noise), standardised
on its first 1000 steps, an MLP on 24 lags trained with Adam for 800 steps, and a 12-step
recursive forecast from each of 52 held-out origins.

Fix: predict the date from the history as it is, then append that prediction at the date
it forecasts.

Measured (held-out 12-step recursive forecast RMSE, standardised units): 0.21 with the bug,
0.15 fixed; seeds + 1000: 0.21 vs 0.14.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._ts190 import (HORIZON, LAGS, TRAIN_END, forecaster,
                                         recursive_rmse, scale, series, train, windows)

TITLE = "Recursive Strategy Bug"
LINK = "https://github.com/madagra/energy-ts-analysis/issues/4"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 800


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = scale(series(0))
    x, y = windows(data, 0, TRAIN_END)
    model = forecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        train(model, x, y, steps, mon, optimizer)

    def predict(lags):
        inputs = torch.tensor(np.array(lags, dtype=np.float32))
        return float(model(inputs[None])[0, 0])

    def forecast(values, origin):
        history = list(values[origin - LAGS:origin, 0])
        out = []
        with torch.no_grad():
            for _ in range(HORIZON):
                if fixed:
                    pred = predict(history[-LAGS:])
                    history.append(pred)
                else:
                    # BUG: the placeholder goes in at the date being predicted
                    history.append(out[-1] if out else 0.0)
                    pred = predict(history[-LAGS - 1:-1])
                out.append(pred)
        return out

    model.eval()
    mon.held_out_recursive_rmse = recursive_rmse(forecast, data)
    return mon
