"""Shared pieces of real-bug batch 226 (spatio-temporal traffic and sensor-network forecasting).

``road_graph(seed)`` draws a small sensor network like METR-LA's: NODES loop detectors along a
freeway (each linked to the next ones downstream) plus a few interchanges that link to many
sensors, with DCRNN's thresholded Gaussian-kernel weights exp(-(d / sigma)^2) on the edges (no
self-loops in the matrix). ``speeds(adjacency, seed)`` simulates 5-minute speed readings
(LENGTH, NODES) in mph: a daily profile per sensor plus congestion that spreads to a sensor from
its neighbours one step later, so a sensor's future depends on its neighbours' recent past.
Readings can be lost: ``outages`` (blocks of consecutive lost readings per sensor) and
``dropouts`` (scattered single lost readings) are stored as 0, as in METR-LA / PEMS-BAY.

``windows`` cuts sliding windows laid out like the public loaders, sensors by time:
x (M, LAGS, NODES) and y (M, HORIZON, NODES), the HORIZON readings after the LAGS inputs.
``GraphForecaster`` maps (B, NODES, LAGS) to (B, NODES, HORIZON) with two graph convolutions
``relu(h W_self + P h W_nb)`` for a given propagation matrix P. Everything dense and small
enough for one CPU thread.
"""
import math

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

NODES = 30
LENGTH = 2000          # 5-minute steps, about a week
DAY = 288              # steps a day
TRAIN_END = 1400       # readings before this one train; the rest are held out
LAGS, HORIZON = 12, 3  # one hour in, 15 minutes out
SIGMA = 1.0            # [convention] DCRNN's kernel width: the std of the edge distances
KERNEL_FLOOR = 0.1     # [convention] DCRNN zeroes kernel weights below 0.1
HUBS = 4               # interchanges linked to many sensors
BATCH = 32


def road_graph(seed=0):
    """Weighted adjacency (NODES, NODES), symmetric, zero diagonal."""
    rng = np.random.default_rng(seed)
    d = np.full((NODES, NODES), np.inf)
    for i in range(NODES):
        for j in (i + 1, i + 2):                       # along the freeway
            if j < NODES:
                d[i, j] = d[j, i] = rng.uniform(0.3, 1.5)
    for hub in rng.choice(NODES, HUBS, replace=False):  # interchanges
        for j in rng.choice(NODES, 10, replace=False):
            if j != hub:
                d[hub, j] = d[j, hub] = rng.uniform(0.3, 1.5)
    w = np.exp(-(d / SIGMA) ** 2)
    w[w < KERNEL_FLOOR] = 0.0
    np.fill_diagonal(w, 0.0)
    return torch.from_numpy(w).float()


def speeds(adjacency, seed=0, outages=0.0, dropouts=0.0):
    """(LENGTH, NODES) float32 speeds in mph, lost readings stored as 0. ``outages``: the
    share of readings lost in blocks (a sensor goes silent for 3..36 steps); ``dropouts``:
    the share lost one reading at a time."""
    rng = np.random.default_rng(seed)
    a = adjacency.numpy().astype(np.float64)
    p = a / np.maximum(a.sum(1, keepdims=True), 1e-9)
    t = np.arange(LENGTH)
    phase = rng.uniform(0, 2 * math.pi, NODES)
    daily = np.sin(2 * math.pi * t[:, None] / DAY + phase) + 0.5 * np.sin(
        4 * math.pi * t[:, None] / DAY + 2 * phase)
    x = np.zeros((LENGTH, NODES))
    for i in range(1, LENGTH):
        x[i] = 0.35 * x[i - 1] + 0.6 * p @ x[i - 1] + 0.5 * rng.normal(size=NODES)
    v = 55.0 + 5.0 * daily + 6.0 * x
    lost = np.zeros_like(v, dtype=bool)
    if outages:
        starts = rng.random(v.shape) < outages / 18.0
        for i, j in zip(*np.nonzero(starts)):
            lost[i:i + int(rng.integers(3, 37)), j] = True
    if dropouts:
        lost |= rng.random(v.shape) < dropouts
    v[lost] = 0.0
    return v.astype(np.float32)


def windows(series, start, end):
    """Sliding windows of the readings in [start, end): x (M, LAGS, NODES), y (M, HORIZON,
    NODES) the HORIZON readings right after each input window."""
    s = torch.from_numpy(series)
    idx = torch.arange(start, end - LAGS - HORIZON + 1)
    x = torch.stack([s[i:i + LAGS] for i in idx.tolist()])
    y = torch.stack([s[i + LAGS:i + LAGS + HORIZON] for i in idx.tolist()])
    return x, y


def random_walk(adjacency):
    """DCRNN's forward diffusion with self-loops: D^-1 (W + I)."""
    a = adjacency + torch.eye(len(adjacency))
    return a / a.sum(1, keepdim=True)


def symmetric(adjacency):
    """Kipf & Welling: D~^-1/2 (A + I) D~^-1/2."""
    a = adjacency + torch.eye(len(adjacency))
    d = a.sum(1).rsqrt()
    return d[:, None] * a * d[None, :]


class GraphForecaster(nn.Module):
    """Two graph convolutions over the sensors, each ``relu(h W_self + P h W_nb)``, then a
    linear head to the HORIZON next readings of every sensor."""

    def __init__(self, hidden=32):
        super().__init__()
        self.self1, self.nb1 = nn.Linear(LAGS, hidden), nn.Linear(LAGS, hidden, bias=False)
        self.self2, self.nb2 = nn.Linear(hidden, hidden), nn.Linear(hidden, hidden, bias=False)
        self.head = nn.Linear(hidden, HORIZON)

    def forward(self, x, propagate):            # x (B, NODES, LAGS)
        h = F.relu(self.self1(x) + propagate @ self.nb1(x))
        h = F.relu(self.self2(h) + propagate @ self.nb2(h))
        return self.head(h)                      # (B, NODES, HORIZON)


@torch.no_grad()
def observed_mae(predicted, y):
    """MAE in mph over the readings that were not lost (y != 0), as DCRNN reports it."""
    kept = y != 0
    return round(float((predicted - y)[kept].abs().mean()), 3)
