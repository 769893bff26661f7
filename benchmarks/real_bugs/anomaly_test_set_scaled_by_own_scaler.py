"""A multivariate sensor anomaly detector whose test set is min-max scaled by a second
scaler fitted on the test set itself. The test set holds the anomalies, and a spike sets
its sensor's maximum, so every normal reading of that sensor is squeezed towards 0 by a
different factor than in training: the normal test windows no longer look like the normal
training windows, their reconstruction errors rise to the anomalies' level, and the
spikes themselves are scaled back into [0, 1]. Training is untouched and healthy; the
scores are off.

Reported: "Fitting on two different Scaler" -
https://github.com/NetManAIOps/OmniAnomaly/issues/39 (with normalisation on, OmniAnomaly's
preprocessing fits one MinMaxScaler on the training set and another on the test set; the
reporter: fit one of them and transform both with it). Here eight sensors (levels 10-50,
a slow cycle each, noise), windows of 8 steps flattened to 64 inputs, an MLP autoencoder
(64-32-8-32-64) trained on the first 3,000 readings (all normal); the last 1,000 readings
carry 20 spikes of 1-2x a sensor's level, a window is anomalous if it holds a spike.
Fix: fit the scaler on the training readings and transform the test readings with it.

Measured (500 Adam steps, batch 32, 2,993 training windows, 993 test windows ~18%
anomalous, seeds 0/1000): test AUROC 0.63/0.96 for the bug, 1.00/1.00 for the fixed twin.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._one_class import auroc, index_batches

TITLE = "Fitting on two different Scaler"
LINK = "https://github.com/NetManAIOps/OmniAnomaly/issues/39"
EXPECTED = ("SCALER_FIT_ON_HELD_OUT_ROWS",)
STEPS = 500
SENSORS, WINDOW = 8, 8
TRAIN, TEST, SPIKES = 3000, 1000, 20


def readings(seed=0):
    """(readings (TRAIN + TEST, SENSORS), spike mask per reading): normal readings, spikes
    only in the test stretch."""
    rng = np.random.default_rng(seed)
    t = np.arange(TRAIN + TEST)[:, None]
    freq = rng.uniform(0.02, 0.1, SENSORS)
    phase = rng.uniform(0, 2 * np.pi, SENSORS)
    level = rng.uniform(10, 50, SENSORS)
    x = level * (1 + 0.3 * np.sin(2 * np.pi * freq * t + phase))
    x = x + rng.normal(0, 0.5, x.shape)
    spike = np.zeros(len(x))
    for _ in range(SPIKES):
        at, sensor = rng.integers(TRAIN, TRAIN + TEST - 4), rng.integers(0, SENSORS)
        x[at:at + 3, sensor] += level[sensor] * rng.uniform(1, 2)
        spike[at:at + 3] = 1
    return torch.from_numpy(x.astype(np.float32)), torch.from_numpy(spike)


def min_max_scaler(x):
    low, high = x.min(0).values, x.max(0).values
    return lambda z: (z - low) / (high - low)


def windows(x, spike):
    starts = range(len(x) - WINDOW + 1)
    flat = torch.stack([x[s:s + WINDOW].reshape(-1) for s in starts])
    return flat, torch.stack([spike[s:s + WINDOW].max() for s in starts])


def autoencoder():
    return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 8), nn.ReLU(),
                         nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 64))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, spike = readings(seed=0)
    train_raw, test_raw = x[:TRAIN], x[TRAIN:]
    train_scaler = min_max_scaler(train_raw)
    # BUG: a second scaler fitted on the test readings; the fix reuses the training one
    test_scaler = train_scaler if fixed else min_max_scaler(test_raw)
    train, _ = windows(train_scaler(train_raw), spike[:TRAIN])
    test, is_anomaly = windows(test_scaler(test_raw), spike[TRAIN:])
    model = autoencoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, seed=0):
            batch = train[index]
            loss = ((model(batch) - batch) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        scores = ((model(test) - test) ** 2).mean(1)
    mon.held_out_auroc = auroc(scores, is_anomaly)
    return mon
