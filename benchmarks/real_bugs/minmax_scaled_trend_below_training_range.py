"""A trending series forecast on its LEVELS, min-max scaled with the training span's range
(correctly fitted on the training span only), by a network whose output layer is followed by
a ReLU. The series falls: the held-out span lies below the training minimum, so its scaled
values are negative, and the ReLU output cannot go below 0 - every held-out forecast is
clipped to the training minimum. Training itself is healthy: on the training span the
targets are all in [0, 1], the loss falls and the fit is good; only data the scaler has not
seen exposes it, and the forecasts quietly flatten at the floor.

Reported: "MinMaxScaler problem" -
https://quantra.quantinsti.com/community/t/minmaxscaler-problem/25628 (LSTM and Dense layers
with a ReLU-activated output neuron, a MinMaxScaler fitted on the training data; once new
data fell outside the scaler's range the network output 0 - "almost 1" above it; the answer
confirmed fitting the scaler on the training split is right and that the fix is to make the
series stationary by differencing before scaling, so new data stays inside the range the
model was trained on). Here a downward-trending series (slope -0.006 a step, two cycles,
noise), the scaler fitted on the first 1000 steps, an MLP with a ReLU after its last layer on
24 lags (its output bias started at 0.5, inside the
scaled range) trained with Adam for 800 steps, and one-step forecasts over the 376 held-out steps.
Fix: first differences, min-max scaled on the training span, and the forecast level is the
last level plus the predicted difference.

Measured (held-out one-step forecast RMSE in the series' units; its cycles have std about
1.6): seed 0: 1.39 with the bug against 0.13 for the fixed twin; seeds shifted by 1000:
1.06 against 0.13.
"""
import math

import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._ts190 import LAGS, LENGTH, TRAIN_END, train

TITLE = "MinMaxScaler problem"
LINK = "https://quantra.quantinsti.com/community/t/minmaxscaler-problem/25628"
EXPECTED = ("HELD_OUT_INPUTS_OUTSIDE_SCALER_RANGE",)
STEPS = 800
SLOPE = -0.006


def trending_series():
    rng = np.random.default_rng(0)
    t = np.arange(LENGTH)
    phase = rng.uniform(0, 2 * math.pi, 2)
    return (10.0 + SLOPE * t + np.sin(2 * math.pi * t / 12 + phase[0])
            + 0.6 * np.sin(2 * math.pi * t / 40 + phase[1]) + rng.normal(0, 0.1, LENGTH))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    np.random.seed(0)
    level = trending_series()
    # the report's fix: model the differences (stationary), not the levels
    signal = np.diff(level, prepend=level[0]) if fixed else level
    low, high = signal[1:TRAIN_END].min(), signal[1:TRAIN_END].max()
    scaled = ((signal - low) / (high - low)).astype(np.float32)      # fitted on training span
    x = torch.tensor(np.array([scaled[i - LAGS:i] for i in range(LAGS + 1, TRAIN_END)]))
    y = torch.tensor(scaled[LAGS + 1:TRAIN_END, None])
    model = nn.Sequential(nn.Linear(LAGS, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, 1), nn.ReLU())       # ReLU-activated output neuron
    nn.init.constant_(model[4].bias, 0.5)      # output starts mid-range (alive) in both runs
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        train(model, x, y, steps, mon, optimizer)
    model.eval()
    targets = range(TRAIN_END, LENGTH)
    inputs = torch.tensor(np.array([scaled[i - LAGS:i] for i in targets]))
    with torch.no_grad():
        predicted = model(inputs)[:, 0].numpy() * (high - low) + low
    if fixed:
        predicted = level[TRAIN_END - 1:LENGTH - 1] + predicted
    mon.held_out_rmse = float(np.sqrt(np.mean((predicted - level[TRAIN_END:]) ** 2)))
    return mon
