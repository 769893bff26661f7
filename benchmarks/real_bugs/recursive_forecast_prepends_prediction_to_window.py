"""A multi-step forecast made recursively from a one-step forecaster: after each step the
prediction is PREPENDED to the history list (``window = [prediction] + window``) and the
model is given the first LAGS entries. The model was trained on windows in time order,
oldest first; the recursive window now starts with the newest prediction and then the real
values in their original order, with the newest real values falling off the end - so from
the second step on the model reads a scrambled, stale window and its forecast drifts. Training
is untouched (loss, gradients and the one-step fit are healthy); only the held-out
multi-step forecast is wrong, and nothing errors because the window keeps its length.

Reported: "fix: correct sliding window in predict_yield_trend_task (#1080)" -
https://github.com/Eshajha19/agri/pull/1102 (a yield-trend task forecast several years by
prepending each prediction to the list it slices its 5 input values from; the PR found that
by the third step the real inputs were displaced and the model predicted from its own
outputs in the wrong order, and fixed it with ``temp = temp[1:] + [pred]``: drop the oldest,
append the newest). Here a two-cycle synthetic series (periods 12 and 40, noise), a scaler
fitted on the first 1000 steps, an MLP on 24 lags trained with Adam for 800 steps, and a
12-step recursive forecast from each of 52 held-out origins. Fix: append and drop the
oldest.

Measured (held-out 12-step recursive forecast RMSE, standardised units; the series' std is
1): seed 0: 1.39 with the bug against 0.15 for the fixed twin; seeds shifted by 1000: 1.40
against 0.14.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._ts190 import (HORIZON, LAGS, TRAIN_END, forecaster,
                                         recursive_rmse, scale, series, train, windows)

TITLE = "fix: correct sliding window in predict_yield_trend_task (#1080)"
LINK = "https://github.com/Eshajha19/agri/pull/1102"
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
        history = list(values[origin - LAGS:origin, 0])
        out = []
        with torch.no_grad():
            for _ in range(HORIZON):
                inputs = torch.tensor(np.array(history[-LAGS:] if fixed else history[:LAGS]),
                                      dtype=torch.float32)
                pred = float(model(inputs[None])[0, 0])
                out.append(pred)
                if fixed:      # append the newest and read the last LAGS values
                    history = history + [pred]
                else:          # BUG: the prediction goes to the front of the list
                    history = [pred] + history
        return out

    model.eval()
    mon.held_out_recursive_rmse = recursive_rmse(forecast, data)
    return mon
