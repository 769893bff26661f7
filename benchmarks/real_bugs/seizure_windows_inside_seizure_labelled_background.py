"""Scalp-EEG seizure detection on fixed windows, each window labelled "seizure" only when a
seizure's onset or its end falls inside it. A window lying wholly inside a seizure holds
neither time point, so it is labelled background: of a 40-second seizure cut into
4-second windows, the two windows at its edges are positives and the eight between them,
the most typical seizure activity of all, are negatives. The network is taught that
rhythmic seizure discharge is mostly background; the loss falls to the level of the
rare positives' share, and on correctly labelled recordings it calls every window
background - it misses every seizure.

Reported: "CHB-MIT preprocessing: Potential labeling issue for seizure windows" -
https://github.com/ycq091044/BIOT/issues/18 ("The current code labels a window as seizure
only if it contains the seizure start or end point"; a window inside a seizure interval,
containing neither, is labelled 0). Here: synthetic 4-channel recordings at 32 Hz (a
low-pass background with a little 10 Hz alpha; seizures of 24-60 s whose 3-6 Hz
rhythmic discharge builds up on one hemisphere's pair of channels and spreads to the
other), cut into non-overlapping 4-second windows, 8 training recordings and 4 held-out
ones; each recording is scaled by the training recordings' per-channel standard
deviation; the small temporal ConvNet of _biosignals, Adam, batches of 64.
Fix: label a window 1 when it overlaps a seizure (onset < window end and end > window
start), as the issue proposes.

Measured (held-out balanced accuracy over the windows of 4 unseen recordings, labelled
by overlap; 0.5 is a detector that never fires): 0.500 with the bug, 0.984 fixed;
seeds + 1000: 0.500 vs 0.972.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._biosignals import ConvNet
from benchmarks.real_bugs._common import index_batches

TITLE = "CHB-MIT preprocessing: Potential labeling issue for seizure windows"
LINK = "https://github.com/ycq091044/BIOT/issues/18"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 300
RATE, CHANNELS = 32, 4
WINDOW = 4 * RATE                     # 4-second windows, cut without overlap
LENGTH = 150 * WINDOW                 # 10 minutes per recording
BATCH = 64


def recording(rng):
    """(signal float32 (CHANNELS, LENGTH), seizures [(onset, end)] in samples)."""
    white = rng.standard_normal((CHANNELS, LENGTH + 6))
    background = (np.cumsum(white, 1)[:, 6:] - np.cumsum(white, 1)[:, :-6]) / np.sqrt(6)
    t = np.arange(LENGTH) / RATE
    background += 0.4 * np.sin(2 * np.pi * 10 * t + rng.uniform(0, 2 * np.pi, (CHANNELS, 1)))
    seizures, start = [], int(rng.integers(20, 60)) * RATE
    while True:
        duration = int(rng.integers(24, 61)) * RATE
        if start + duration >= LENGTH - 10 * RATE:
            break
        seizures.append((start, start + duration))
        start += duration + int(rng.integers(60, 150)) * RATE
    x = background
    for onset, end in seizures:
        n = end - onset
        tt = np.arange(n) / RATE
        freq = rng.uniform(3.0, 6.0)
        wave = np.sin(2 * np.pi * freq * tt) + 0.5 * np.sin(4 * np.pi * freq * tt + 0.6)
        build = np.clip(tt / 6.0, 0.2, 1.0)                   # builds up over 6 s
        side = rng.integers(2)
        gain = np.full(CHANNELS, 0.6)
        gain[2 * side: 2 * side + 2] = 1.6                     # one hemisphere leads
        x[:, onset:end] += gain[:, None] * 1.3 * build * wave
    return x.astype(np.float32), seizures


def windows(x, seizures, fixed):
    xs, ys = [], []
    for i in range(0, LENGTH - WINDOW + 1, WINDOW):
        if fixed:                      # the window overlaps a seizure
            label = any(onset < i + WINDOW and end > i for onset, end in seizures)
        else:                          # BUG: only windows holding an onset or an end
            label = any(i < onset < i + WINDOW or i < end < i + WINDOW
                        for onset, end in seizures)
        xs.append(x[:, i:i + WINDOW])
        ys.append(int(label))
    return np.stack(xs), np.array(ys)


def dataset(rng, n, fixed, scale=None):
    xs, ys = [], []
    for _ in range(n):
        x, seizures = recording(rng)
        wx, wy = windows(x, seizures, fixed)
        xs.append(wx)
        ys.append(wy)
    x, y = np.concatenate(xs), np.concatenate(ys)
    if scale is None:
        scale = x.std(axis=(0, 2), keepdims=True)
    return torch.from_numpy(x / scale), torch.from_numpy(y), scale


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
    x_train, y_train, scale = dataset(rng, 8, fixed)
    x_test, y_test, _ = dataset(rng, 4, True, scale)    # held out: labelled by overlap
    model = ConvNet(channels=CHANNELS, classes=2)
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
