"""An artifact detector for multi-electrode recordings whose traces, held as (timepoints,
electrodes), were z-scored with axis=1: each time point is centred and scaled by the mean
and spread of the electrodes at that instant, instead of each electrode over its own
time points. An artifact is a stretch where every electrode swings several times wider
than usual; divided by the spread across electrodes at the same instant, it comes out
as large as clean signal. What is left is the artifact's slightly sharper spectrum,
which the small network does not pick up in its run: the loss settles at the class
prior's entropy and the detector calls every window clean.

Reported: "apply zscore across times, within electrode" -
https://github.com/LorenFrankLab/spyglass/pull/259 ("Z-scoring with axis=1 is z-scoring
across all electrodes at one timepoint"; artifact threshold crossings that should have
been found were not). Here the same normalisation feeds a small network: synthetic
6-electrode recordings at 64 Hz (low-pass background with a 10 Hz rhythm, independent
per electrode; artifact bursts of 1-4 s where the activity of every electrode grows 2.5-4
times, with some added high-frequency power), z-scored per recording, then cut into
1-second windows labelled artifact when half of the window or more lies in a burst;
8 training and 4 held-out recordings; the small temporal ConvNet of _biosignals, Adam.
Fix: z-score each electrode over its time points (axis=0), as the pull request does.

Measured (held-out balanced accuracy over the windows of 4 unseen recordings, each
preprocessed as its training run's; 0.5 is a detector that never fires): 0.500 with the
bug, 0.966 fixed; seeds + 1000: 0.500 vs 0.984.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._biosignals import ConvNet
from benchmarks.real_bugs._common import index_batches

TITLE = "apply zscore across times, within electrode"
LINK = "https://github.com/LorenFrankLab/spyglass/pull/259"
EXPECTED = ("NORMALISATION_ERASES_CLASS_SIGNAL", "INPUT_ROWS_STANDARDISED")
STEPS = 300
RATE, ELECTRODES = 64, 6
WINDOW = RATE                         # 1-second windows
LENGTH = 240 * RATE                   # 4 minutes per recording
BATCH = 64


def recording(rng):
    """(traces float32 (LENGTH, ELECTRODES), artifact mask bool (LENGTH,))."""
    white = rng.standard_normal((LENGTH + 4, ELECTRODES))
    traces = (np.cumsum(white, 0)[4:] - np.cumsum(white, 0)[:-4]) / 2.0
    t = np.arange(LENGTH)[:, None] / RATE
    traces += 0.8 * np.sin(2 * np.pi * 10 * t + rng.uniform(0, 2 * np.pi, ELECTRODES))
    traces *= rng.uniform(0.7, 1.4, ELECTRODES)               # electrode impedances differ
    mask = np.zeros(LENGTH, bool)
    start = int(rng.integers(2, 8)) * RATE
    while start < LENGTH - 5 * RATE:
        n = int(rng.integers(RATE, 4 * RATE))
        gain = rng.uniform(2.5, 4.0)
        traces[start:start + n] *= gain
        traces[start:start + n] += 0.8 * rng.standard_normal((n, ELECTRODES))
        mask[start:start + n] = True
        start += n + int(rng.integers(4, 16)) * RATE
    return traces.astype(np.float32), mask


def zscore(a, axis):
    return (a - a.mean(axis, keepdims=True)) / a.std(axis, keepdims=True)


def dataset(rng, n, fixed):
    xs, ys = [], []
    for _ in range(n):
        traces, mask = recording(rng)
        # BUG: axis=1 standardises each time point across the electrodes
        traces = zscore(traces, axis=0 if fixed else 1)
        for i in range(0, LENGTH - WINDOW + 1, WINDOW):
            xs.append(traces[i:i + WINDOW].T)                   # (electrodes, time)
            ys.append(int(mask[i:i + WINDOW].mean() >= 0.5))
    return torch.from_numpy(np.stack(xs)), torch.tensor(ys)


def balanced_accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        pred = model(x).argmax(-1)
    model.train()
    recalls = [(pred[y == c] == c).float().mean().item() for c in (0, 1)]
    return round(sum(recalls) / 2, 3)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x_train, y_train = dataset(rng, 8, fixed)
    x_test, y_test = dataset(rng, 4, fixed)                    # same preprocessing
    model = ConvNet(channels=ELECTRODES, classes=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in index_batches(len(x_train), steps, BATCH):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x_train[rows]), y_train[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_balanced_accuracy = balanced_accuracy(model, x_test, y_test)
    return mon
