"""Sleep staging from PSG recordings whose stage annotations were moved onto a time axis that
starts at the first annotation: the loader subtracted the first annotation's onset from
every onset, assuming scoring starts with the recording. Scoring starts minutes into each
record, so every stage lands earlier than it happened by that record's own lead-in, and
each 30-second epoch is trained with the stage of an epoch several minutes later. Stages
last a few minutes, so the labels are still loosely correlated with the signal: the loss
falls a little, and the stager it learns is poor on correctly aligned recordings.

Reported: "neuralfetch(bug): keep Ghassemi2018You annotations on the record's time axis" -
https://github.com/facebookresearch/neuroai/pull/264 ("Challenge 2018 scoring starts
minutes into each record, so every stage and arousal ... was shifted earlier by a
record-specific lead-in"). Here: synthetic 3-channel recordings at 32 Hz, one
epoch scaled down to 2 s (64 samples), a 6-16 epoch unscored lead-in, then 160 scored
epochs of four stages (wake: alpha and beta; light sleep: theta and 13 Hz spindles; deep
sleep: large delta; REM: theta and low amplitude) that last 3-12 epochs each; the
annotations come as (onset, duration in seconds, stage), every epoch one covers is a
training window; 10 training and 4 held-out recordings, divided by the training
windows' per-channel standard deviation; the small temporal ConvNet of _biosignals, Adam.
Fix: keep each onset on the record's time axis (do not subtract the first one).

Measured (held-out accuracy on the scored epochs of 4 unseen, correctly aligned
recordings; chance is about 0.25): 0.552 with the bug, 1.000 fixed; seeds + 1000: 0.598
vs 1.000.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._biosignals import ConvNet, accuracy
from benchmarks.real_bugs._common import index_batches

TITLE = "neuralfetch(bug): keep Ghassemi2018You annotations on the record's time axis"
LINK = "https://github.com/facebookresearch/neuroai/pull/264"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 300
RATE, CHANNELS = 32, 3
EPOCH = 2 * RATE                      # one scoring epoch (a 30-s epoch, scaled down)
SCORED = 160                          # scored epochs per recording
BATCH = 64
# per stage: amplitude of (delta 1.5 Hz, theta 6 Hz, alpha 10 Hz, spindle 13 Hz, beta 15 Hz)
BANDS = np.array([1.5, 6.0, 10.0, 13.0, 15.0])
STAGES = np.array([[0.3, 0.3, 1.2, 0.0, 0.6],      # wake
                   [0.5, 1.0, 0.2, 0.8, 0.1],      # light sleep
                   [2.0, 0.5, 0.1, 0.2, 0.0],      # deep sleep
                   [0.3, 0.9, 0.3, 0.0, 0.3]])     # REM


def recording(rng):
    """(signal (CHANNELS, samples), annotations [(onset s, duration s, stage)]) of a night."""
    lead_in = int(rng.integers(6, 17))
    stages = np.zeros(lead_in + SCORED, np.int64)            # the lead-in is unscored wake
    annotations, e = [], lead_in
    while e < lead_in + SCORED:
        stage = int(rng.integers(4))
        span = min(int(rng.integers(3, 13)), lead_in + SCORED - e)
        stages[e:e + span] = stage
        annotations.append((e * EPOCH / RATE, span * EPOCH / RATE, stage))
        e += span
    t = np.arange(EPOCH) / RATE
    epochs = []
    for stage in stages:
        phase = rng.uniform(0, 2 * np.pi, (CHANNELS, len(BANDS), 1))
        amp = STAGES[stage][None, :, None] * rng.uniform(0.7, 1.3, (CHANNELS, 1, 1))
        waves = (amp * np.sin(2 * np.pi * BANDS[None, :, None] * t + phase)).sum(1)
        epochs.append(waves + 0.5 * rng.standard_normal((CHANNELS, EPOCH)))
    return np.concatenate(epochs, 1).astype(np.float32), annotations


def scored_windows(x, annotations, fixed):
    """Every epoch an annotation covers, with that annotation's stage."""
    if not fixed:                      # BUG: onsets moved to start at the first annotation
        first = annotations[0][0]
        annotations = [(onset - first, span, stage) for onset, span, stage in annotations]
    xs, ys = [], []
    for onset, span, stage in annotations:
        for e in range(int(round(onset * RATE / EPOCH)), int(round((onset + span) * RATE / EPOCH))):
            xs.append(x[:, e * EPOCH:(e + 1) * EPOCH])
            ys.append(stage)
    return np.stack(xs), np.array(ys)


def dataset(rng, n, fixed, scale=None):
    xs, ys = [], []
    for _ in range(n):
        wx, wy = scored_windows(*recording(rng), fixed)
        xs.append(wx)
        ys.append(wy)
    x, y = np.concatenate(xs), np.concatenate(ys)
    if scale is None:
        scale = x.std(axis=(0, 2), keepdims=True)
    return torch.from_numpy(x / scale), torch.from_numpy(y), scale


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x_train, y_train, scale = dataset(rng, 10, fixed)
    x_test, y_test, _ = dataset(rng, 4, True, scale)      # held out: on the record's axis
    model = ConvNet(channels=CHANNELS, classes=4)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in index_batches(len(x_train), steps, BATCH):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x_train[rows]), y_train[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
