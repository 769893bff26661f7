"""A hand-written diffusion convolution (DCRNN) whose second, "backward" support is built from
W instead of W transposed: both random walks then follow the traffic downstream
(D_out^-1 W and D_in^-1 W, both aggregating over a sensor's downstream neighbours), and no
term reads the sensors upstream - the ones whose congestion reaches this sensor next.
Training runs and the loss falls.

Reported: "DCRNN source code problems" -
https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/50 ("In the diffusion
convolution layer of DCRNN, I doubt whether the message passing flow directions for Dout and
Din are the same. Because in your source code, they share the same direction 'source to
target'. But in the original paper ... one is (Dout)-1 @ W and the other is (Din)-1 @ W
transpose"; fixed in PR #58 as "a misinterpretation of the equation and the direction of the
edge_index"). Here a directed METR-LA-like freeway of 30 speed sensors (each linked to the next
two downstream, four interchanges), congestion carried downstream one step at a time, windows
of 12 five-minute readings, two diffusion convolutions forecasting the next 3 readings.
Fix: the backward support D_in^-1 W^T.

Measured harm (held-out MAE in mph over the last 600 readings): 3.16 vs 2.84
for the fixed twin; seeds + 1000: 3.16 vs 2.89.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._stgnn import (BATCH, HORIZON, LAGS, LENGTH, TRAIN_END, observed_mae,
                                         road_graph, speeds, windows)

TITLE = "DCRNN source code problems"
LINK = "https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/50"
EXPECTED = ("NODES_GATHER_NOTHING",)
STEPS = 300


class DiffusionForecaster(nn.Module):
    """Two diffusion convolutions ``relu(h W_0 + P_f h W_f + P_b h W_b)`` and a linear head."""

    def __init__(self, hidden=32):
        super().__init__()
        self.self1, self.self2 = nn.Linear(LAGS, hidden), nn.Linear(hidden, hidden)
        self.f1, self.b1 = (nn.Linear(LAGS, hidden, bias=False) for _ in range(2))
        self.f2, self.b2 = (nn.Linear(hidden, hidden, bias=False) for _ in range(2))
        self.head = nn.Linear(hidden, HORIZON)

    def forward(self, x, forward_walk, backward_walk):
        h = F.relu(self.self1(x) + forward_walk @ self.f1(x) + backward_walk @ self.b1(x))
        h = F.relu(self.self2(h) + forward_walk @ self.f2(h) + backward_walk @ self.b2(h))
        return self.head(h)


def inverse(degree):
    """1 / degree, 0 where a sensor has no such edge (as the public layers do)."""
    return torch.where(degree > 0, 1 / degree.clamp(min=1e-9), torch.zeros_like(degree))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    weights = road_graph(seed=0)
    w = torch.triu(weights)                 # directed: an edge i -> j points downstream (j > i)
    series = speeds(w.T, seed=0)            # a sensor follows its upstream sensors a step late
    mean, std = float(series[:TRAIN_END].mean()), float(series[:TRAIN_END].std())
    x, y = windows(series, 0, TRAIN_END)
    x_test, y_test = windows(series, TRAIN_END, LENGTH)
    out_degree, in_degree = w.sum(1), w.sum(0)
    forward_walk = inverse(out_degree)[:, None] * w                        # D_out^-1 W
    if fixed:
        backward_walk = inverse(in_degree)[:, None] * w.T                  # D_in^-1 W^T
    else:                                   # BUG: the same direction as the forward walk
        backward_walk = inverse(in_degree)[:, None] * w
    model = DiffusionForecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

    def forecast(xb):
        xb = ((xb - mean) / std).permute(0, 2, 1)
        return (model(xb, forward_walk, backward_walk) * std + mean).transpose(1, 2)

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
