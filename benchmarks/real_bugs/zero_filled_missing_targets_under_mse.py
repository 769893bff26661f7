"""Sensor readings with scattered gaps (NaN) replaced by 0 and trained with mean squared error:
each lost reading becomes a target several standard deviations below every real one, which
the model cannot foresee, so the squared error pulls all forecasts down - a systematic offset
between the forecasts and the ground truth. The loss falls as usual.

Reported: "LSTM having a systematic offset between predictions and ground truth" -
https://stackoverflow.com/questions/54368686/lstm-having-a-systematic-offset-between-predictions-and-ground-truth
(a regression on sensor-like series with MSE loss and Adam; "NaNs have been replaced with
zero" in the ground truth, and the predictions sit at a constant offset from the truth).
Here a METR-LA-like network of 30 speed sensors, 6% of the readings lost one at a time and
stored as 0, z-scored with the training span's mean and std, a two-layer graph convolution
forecasting the next 3 readings with MSE on the scaled values. Fix: leave the lost readings
out of the loss (a mask), the inputs unchanged.

Measured harm (held-out MAE in mph over the readings that were not lost):
4.31 vs 2.89 for the fixed twin; seeds + 1000: 4.19 vs 2.90.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._stgnn import (BATCH, LENGTH, TRAIN_END, GraphForecaster,
                                         observed_mae, random_walk, road_graph, speeds, windows)

TITLE = "LSTM having a systematic offset between predictions and ground truth"
LINK = ("https://stackoverflow.com/questions/54368686/"
        "lstm-having-a-systematic-offset-between-predictions-and-ground-truth")
EXPECTED = ("UNLABELLED_KEYPOINTS_TRAINED",)
STEPS = 300
DROPOUTS = 0.06


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    adjacency = road_graph(seed=0)
    series = speeds(adjacency, seed=0, dropouts=DROPOUTS)   # NaN -> 0
    mean, std = float(series[:TRAIN_END].mean()), float(series[:TRAIN_END].std())
    x, y = windows(series, 0, TRAIN_END)
    x_test, y_test = windows(series, TRAIN_END, LENGTH)
    propagate = random_walk(adjacency)
    model = GraphForecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

    def forecast_scaled(xb):
        return model(((xb - mean) / std).permute(0, 2, 1), propagate).transpose(1, 2)

    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(x), (BATCH,))
            optimizer.zero_grad()
            predicted, target = forecast_scaled(x[rows]), (y[rows] - mean) / std
            if fixed:
                kept = y[rows] != 0
                loss = ((predicted - target)[kept] ** 2).mean()
            else:                                   # BUG: the zero-filled gaps are targets
                loss = ((predicted - target) ** 2).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_mae = observed_mae(forecast_scaled(x_test) * std + mean, y_test)
    return mon
