"""The "normalised" adjacency built as ``degrees.dot(adjacency)`` - the degree matrix times A -
instead of D^-1/2 A D^-1/2: every row of A is multiplied by its node's degree rather than
divided by it, so a sensor's aggregated neighbour signal grows with the square of its degree
(an interchange sensor with 10 neighbours sums 100 times what a sensor with one neighbour
does). The loss is large but falls; nothing turns NaN.

Reported: "miscalculations of normalized adjacency matrix" -
https://github.com/benedekrozemberczki/AttentionWalk/issues/9 ("loss_on_target will become
extreme big while training from the original code, and I think is due to the miscalculation
of normalized_adjacency_matrix ... normalized_adjacency_matrix = degs.dot(adjacency_matrix)
... the matrix hasn't been normalize but simply multiple by degree of nodes"; the maintainer
asked for a PR). Here the same mistake in a traffic graph convolution: a METR-LA-like network
of 30 speed sensors with 0/1 connectivity (four interchanges linked to ~10 sensors each),
windows of 12 five-minute readings, two graph convolutions forecasting the next 3 readings.
Fix: D~^-1/2 (A + I) D~^-1/2.

Measured harm (held-out MAE in mph over the last 600 readings): 4.54 vs
2.79 for the fixed twin; seeds + 1000: 6.25 vs 2.81.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._stgnn import (BATCH, LENGTH, TRAIN_END, GraphForecaster,
                                         observed_mae, road_graph, speeds, symmetric, windows)

TITLE = "miscalculations of normalized adjacency matrix"
LINK = "https://github.com/benedekrozemberczki/AttentionWalk/issues/9"
EXPECTED = ("AGGREGATE_GROWS_WITH_DEGREE",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    weights = road_graph(seed=0)
    series = speeds(weights, seed=0)
    connectivity = (weights > 0).float()
    mean, std = float(series[:TRAIN_END].mean()), float(series[:TRAIN_END].std())
    x, y = windows(series, 0, TRAIN_END)
    x_test, y_test = windows(series, TRAIN_END, LENGTH)
    if fixed:
        propagate = symmetric(connectivity)
    else:                                   # BUG: multiplied by the degrees, not normalised
        propagate = torch.diag(connectivity.sum(1)) @ connectivity
    model = GraphForecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

    def forecast(xb):
        xb = ((xb - mean) / std).permute(0, 2, 1)
        return (model(xb, propagate) * std + mean).transpose(1, 2)

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
