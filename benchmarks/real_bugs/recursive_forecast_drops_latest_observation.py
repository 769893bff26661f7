"""A recursive multi-step forecast whose first input window stops one step short of the
forecast origin: the window is cut as ``values[origin - LAGS - 1:origin - 1]``, so the
latest observed value is never read and every forecast step is in fact the model's forecast
for the step BEFORE the one it is scored (and used) against. The one-step forecaster was
trained correctly - loss, gradients and the training fit are healthy - and the forecast has
the right length and a plausible shape, only one step late; on a series with a short cycle
that lag costs more than the whole forecast error of the fixed code.

Reported: "[FIX] Recurrent predictions" - https://github.com/Nixtla/neuralforecast/pull/1285
(with ``recurrent=True`` the LSTM/GRU/RNN models forecast recursively from inputs that left
out the latest available ground truth, an off-by-one error that "makes forecasts slightly
worse"; the fix includes the last observed value in the window the recursion starts from).
Here a two-cycle synthetic series (periods 12 and 40, noise), a scaler fitted on the first
1000 steps, an MLP on 24 lags trained with Adam for 800 steps, and a 12-step recursive
forecast from each of 52 held-out origins. Fix: the window ends at the origin.

Measured (held-out 12-step recursive forecast RMSE, standardised units; the series' std is
about 1): seed 0: 0.47 with the bug against 0.15 for the fixed twin; seeds shifted by 1000:
0.50 against 0.14.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._ts190 import (HORIZON, LAGS, TRAIN_END, forecaster,
                                         recursive_rmse, scale, series, train, windows)

TITLE = "[FIX] Recurrent predictions"
LINK = "https://github.com/Nixtla/neuralforecast/pull/1285"
EXPECTED = ("FORECAST_WINDOW_MISSES_LATEST_VALUE",)
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
        end = origin if fixed else origin - 1      # BUG: the latest observation left out
        history = list(values[end - LAGS:end, 0])
        out = []
        with torch.no_grad():
            for _ in range(HORIZON):
                inputs = torch.tensor(np.array(history[-LAGS:]), dtype=torch.float32)
                pred = float(model(inputs[None])[0, 0])
                out.append(pred)
                history.append(pred)
        return out

    model.eval()
    mon.held_out_recursive_rmse = recursive_rmse(forecast, data)
    return mon
