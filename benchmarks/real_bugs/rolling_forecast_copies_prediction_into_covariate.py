"""A rolling multi-step forecast of a target driven by a known exogenous covariate: after
each step the frame is shifted by one row and the new row is filled with the predicted
TARGET in every column, covariate included (``np.insert(frame, ..., prediction, axis=0)``
with a scalar prediction broadcast across the features). The model was trained on the real
covariate and leans on it (the target is two cycles plus the covariate of the step
before); from the second step on it reads a covariate column that is really its own target
forecast, and the forecast drifts. Training itself is healthy, and the frame keeps its
shape, so nothing errors.

Reported: "Rolling column 1 predicted data into other columns for next step" -
https://github.com/jaungiers/LSTM-Neural-Network-for-Time-Series-Prediction/issues/36 (the
tutorial's multi-sequence prediction drops the oldest row and inserts the 1-D prediction as
the newest row, so the predicted price is copied into every feature column - volume and the
rest; the commenters agreed: either forecast the other features too, or roll the true known
features in with the predicted target). Here a synthetic target (two cycles, noise, plus
1.5 times an AR(1) covariate one step late) and the covariate as a second input channel, a
scaler fitted on the first 1000 steps, an MLP on 24 lags of both channels trained with Adam
for 800 steps, and a 12-step rolling forecast from each of 52 held-out origins. Fix: the new
row holds the predicted target and the known covariate.

Measured (held-out 12-step rolling forecast RMSE, standardised units; the target's std is
about 1): seed 0: 1.18 with the bug against 0.11 for the fixed twin; seeds shifted by 1000:
1.24 against 0.10.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._ts190 import (HORIZON, LAGS, TRAIN_END, forecaster,
                                         recursive_rmse, scale, series, train, windows)

TITLE = "Rolling column 1 predicted data into other columns for next step"
LINK = "https://github.com/jaungiers/LSTM-Neural-Network-for-Time-Series-Prediction/issues/36"
EXPECTED = ("FORECAST_FED_BACK_INTO_COVARIATES",)
STEPS = 800


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    np.random.seed(0)
    data = scale(series(0, covariate=True))
    x, y = windows(data, 0, TRAIN_END)
    model = forecaster(channels=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        train(model, x, y, steps, mon, optimizer)

    def forecast(values, origin):
        frame = values[origin - LAGS:origin].copy()
        out = []
        with torch.no_grad():
            for k in range(HORIZON):
                pred = float(model(torch.tensor(frame.reshape(1, -1)))[0, 0])
                out.append(pred)
                if fixed:      # the predicted target and the covariate known for that step
                    row = np.array([pred, values[origin + k, 1]], dtype=np.float32)
                else:          # BUG: the scalar prediction fills every column of the new row
                    row = np.full(frame.shape[1], pred, dtype=np.float32)
                frame = np.concatenate([frame[1:], row[None]], axis=0)
        return out

    model.eval()
    mon.held_out_recursive_rmse = recursive_rmse(forecast, data)
    return mon
