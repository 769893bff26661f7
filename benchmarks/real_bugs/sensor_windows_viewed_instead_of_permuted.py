"""Sliding windows stored time by sensor, (batch, LAGS, NODES), turned into the model's
sensor by time layout (batch, NODES, LAGS) with ``.view`` instead of ``.permute``: the
numbers are only re-cut, so each "sensor" row the graph convolution sees holds readings of
several sensors at several times, and the adjacency no longer links a sensor to its
neighbours. The loss still falls (the model fits what it can from the scrambled rows).

Reported: "Questions about the model" - https://github.com/abduallahmohamed/Social-STGCNN/issues/14
(question 2: "I am confused about the use of view() function in your code ... It seems you
want to permute the dimensions of v, but why don't you use the function permute()", with a
picture showing that view "cuts" data of one temporal dimension and places it in another).
Here a METR-LA-like road network of 30 speed sensors, windows of 12 five-minute readings,
a two-layer graph convolution forecasting the next 3 readings of every sensor.
Fix: ``x.permute(0, 2, 1)``.

Measured harm (held-out MAE in mph over the last 600 readings): 4.27 vs 2.77
for the fixed twin; seeds + 1000: 4.03 vs 2.80.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._stgnn import (BATCH, LAGS, LENGTH, NODES, TRAIN_END, GraphForecaster,
                                         observed_mae, random_walk, road_graph, speeds, windows)

TITLE = "Questions about the model"
LINK = "https://github.com/abduallahmohamed/Social-STGCNN/issues/14"
EXPECTED = ("RESHAPE_USED_AS_TRANSPOSE", "LAYOUT_NOT_TRANSPOSED")
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    adjacency = road_graph(seed=0)
    series = speeds(adjacency, seed=0)
    mean, std = float(series[:TRAIN_END].mean()), float(series[:TRAIN_END].std())
    x, y = windows(series, 0, TRAIN_END)
    x_test, y_test = windows(series, TRAIN_END, LENGTH)
    propagate = random_walk(adjacency)
    model = GraphForecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

    def forecast(xb):                      # xb (B, LAGS, NODES), time by sensor
        xb = (xb - mean) / std
        if fixed:
            xb = xb.permute(0, 2, 1)
        else:
            xb = xb.view(len(xb), NODES, LAGS)    # BUG: re-cuts instead of transposing
        return (model(xb, propagate) * std + mean).transpose(1, 2)   # (B, HORIZON, NODES)

    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(x), (BATCH,))
            optimizer.zero_grad()
            loss = (forecast(x[rows]) - y[rows]).abs().mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_mae = observed_mae(forecast(x_test), y_test)
    return mon
