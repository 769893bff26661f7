"""A sequence autoencoder for anomaly detection fitted against the NEXT value of the series
instead of its own input window: Keras broadcasts the (batch, 1) target over the
(batch, steps, 1) output, so every output step is trained to repeat the value that follows
the window. The model learns a flat line at the next value, not a reconstruction; the
anomaly score, the error between that output and the input window, then measures how far
the window strays from its own end point - the slope of the series - and a spike inside a
window hardly stands out. The loss falls; nothing errors.

Reported: "Reconstruction error" -
https://github.com/bnsreenu/python_for_microscopists/issues/43 (in the LSTM
encoder-decoder anomaly script the fit used ``trainY`` as the target; the reporter: the fit
should use ``trainX`` as the target to get a reconstruction error, fix proposed in PR #44).
Here a price-like series (a drifting level, two cycles, noise), windows of 30 steps, an
encoder-decoder MLP (30-16-4-16-30, the script's RepeatVector/LSTM pair reduced to dense
layers) trained on the first 3,000 steps; the last 1,000 steps carry 15 spikes, a window is
anomalous if it holds one, scored by mean absolute error against the input window as the
script does.
Fix: fit the model with the input window as its target.

Measured (600 Adam steps, batch 32, seeds 0/1000): test AUROC of the window scores
0.64/0.60 for the bug, 0.96/1.00 for the fixed twin.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._one_class import auroc, index_batches

TITLE = "Reconstruction error"
LINK = "https://github.com/bnsreenu/python_for_microscopists/issues/43"
EXPECTED = ("RECONSTRUCTION_TARGET_NOT_THE_INPUT",)
STEPS = 600
WINDOW = 30
TRAIN, TEST, SPIKES = 3000, 1000, 15


def series(seed=0):
    """(standardised series, spike mask): spikes only in the last TEST steps."""
    rng = np.random.default_rng(seed)
    t = np.arange(TRAIN + TEST)
    x = (np.cumsum(rng.normal(0, 0.05, len(t))) + np.sin(2 * np.pi * t / 90)
         + 0.5 * np.sin(2 * np.pi * t / 23) + rng.normal(0, 0.1, len(t)))
    spike = np.zeros(len(t))
    for _ in range(SPIKES):
        at = rng.integers(TRAIN, TRAIN + TEST - 3)
        x[at:at + 2] += rng.choice([-1, 1]) * rng.uniform(1.5, 2.5)
        spike[at:at + 2] = 1
    x = (x - x[:TRAIN].mean()) / x[:TRAIN].std()        # scaler fitted on the training part
    return torch.from_numpy(x.astype(np.float32)), torch.from_numpy(spike)


def windows(x, spike):
    """Windows of WINDOW steps, the value after each window, whether a window holds a
    spike."""
    starts = range(len(x) - WINDOW)
    return (torch.stack([x[s:s + WINDOW] for s in starts]),
            torch.stack([x[s + WINDOW] for s in starts]),
            torch.stack([spike[s:s + WINDOW].max() for s in starts]))


def encoder_decoder():
    return nn.Sequential(nn.Linear(WINDOW, 16), nn.ReLU(), nn.Linear(16, 4), nn.ReLU(),
                         nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, WINDOW))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, spike = series(seed=0)
    train_x, train_y, _ = windows(x[:TRAIN], spike[:TRAIN])
    test_x, _, is_anomaly = windows(x[TRAIN:], spike[TRAIN:])
    model = encoder_decoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train_x), steps, seed=0):
            batch = train_x[index]
            # BUG: the next value, broadcast over the output steps, is the target
            target = batch if fixed else train_y[index, None].expand_as(batch)
            loss = ((model(batch) - target) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        scores = (model(test_x) - test_x).abs().mean(1)
    mon.held_out_auroc = auroc(scores, is_anomaly)
    return mon
