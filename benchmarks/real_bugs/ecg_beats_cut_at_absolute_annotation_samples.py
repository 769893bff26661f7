"""ECG beat classification on windows cut around the beat annotations of a record segment
read with sampfrom: the signal comes back indexed from the segment's start (its sample 0
is the record's sample ``sampfrom``), while the annotations keep the record's absolute
sample numbers. Cutting ``signal[sample - before : sample + after]`` with the absolute
numbers puts every window ``sampfrom`` samples later than its beat, somewhere in the
rhythm 30 seconds on - rarely on a beat, never on the one the label names. The shapes
are right and the last windows fall off the end and are skipped quietly; the network
finds nothing that ties the windows to their labels, and on correctly cut beats it
gives every beat one class.

Reported: "Is it a bug that rdrecord() load signal always from '0' ?" -
https://github.com/MIT-LCP/wfdb-python/issues/155 ("the signal window of record object
is in range of 0~3000 ... the annotation object has a correct signal window of
3000~6000"). Here: synthetic single-lead ECG records at 128 Hz (normal beats, premature
ventricular beats - wide QRS, no P wave, inverted T - and bundle-branch-block beats - a
notched R-S-R' complex and an inverted T; baseline wander and noise), each read from 30 s
to 330 s with its annotations; beats cut from 0.3 s before to 0.45 s after the
annotation, windows that do not fit skipped, divided by the training beats' standard
deviation; 8 training and 3 held-out records; the small temporal ConvNet of _biosignals,
Adam, batches of 64.
Fix: move the annotations onto the segment's axis (sample - sampfrom; wfdb's
rdann(..., shift_samps=True)).

Measured (held-out balanced accuracy over the three beat classes of 3 unseen records,
cut at the right place; 0.333 is one class for every beat): 0.333 with the bug, 0.864
fixed; seeds + 1000: 0.333 vs 0.808.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._biosignals import ConvNet
from benchmarks.real_bugs._common import index_batches

TITLE = "Is it a bug that rdrecord() load signal always from '0' ?"
LINK = "https://github.com/MIT-LCP/wfdb-python/issues/155"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 400
RATE = 128
SAMPFROM, SAMPTO = 30 * RATE, 330 * RATE
BEFORE, AFTER = int(0.3 * RATE), int(0.45 * RATE)
BATCH = 64
NORMAL, VENTRICULAR, BUNDLE_BLOCK = 0, 1, 2
# (amplitude, centre s, width s) of each wave, per beat type
WAVES = {NORMAL: [(0.15, -0.20, 0.025), (-0.10, -0.03, 0.010), (1.00, 0.0, 0.012),
                  (-0.20, 0.03, 0.010), (0.30, 0.25, 0.040)],
         VENTRICULAR: [(1.20, 0.0, 0.035), (-0.50, 0.07, 0.030), (-0.40, 0.30, 0.060)],
         BUNDLE_BLOCK: [(0.15, -0.20, 0.025), (0.70, 0.0, 0.012), (-0.35, 0.04, 0.015),
                        (0.60, 0.08, 0.015), (-0.20, 0.30, 0.050)]}


def record(rng, seconds=360):
    """(signal float32 (samples,), beat samples (absolute), beat types) of one record."""
    n = seconds * RATE
    signal = np.zeros(n)
    t = np.arange(n) / RATE
    rr = rng.uniform(0.7, 1.0)
    gain = rng.uniform(0.8, 1.2)
    samples, kinds, at = [], [], 1.0
    local = np.arange(-RATE // 2, RATE // 2) / RATE      # each wave drawn within 0.5 s
    while at < seconds - 1:
        kind = rng.choice(3, p=[0.6, 0.2, 0.2])
        if kind == VENTRICULAR:
            at -= 0.3 * rr                               # premature beats come early
        centre_sample = int(round(at * RATE))
        shape = sum(amp * np.exp(-0.5 * ((local - centre) / width) ** 2)
                    for amp, centre, width in WAVES[kind])
        signal[centre_sample - RATE // 2:centre_sample + RATE // 2] += gain * shape
        samples.append(centre_sample)
        kinds.append(kind)
        at += rr * rng.uniform(0.95, 1.05) + (0.4 * rr if kind == VENTRICULAR else 0)
    signal += 0.15 * np.sin(2 * np.pi * 0.3 * t + rng.uniform(0, 6.3))   # baseline wander
    signal += 0.05 * rng.standard_normal(n)
    return signal.astype(np.float32), np.array(samples), np.array(kinds)


def read_segment(rec, sampfrom, sampto):
    """As a record reader does: the signal from sampfrom to sampto, indexed from 0, and the
    annotations inside it with their sample numbers left absolute."""
    signal, samples, kinds = rec
    keep = (samples >= sampfrom) & (samples < sampto)
    return signal[sampfrom:sampto], samples[keep], kinds[keep]


def beats(rng, n, fixed, scale=None):
    xs, ys = [], []
    for _ in range(n):
        signal, samples, kinds = read_segment(record(rng), SAMPFROM, SAMPTO)
        if fixed:
            samples = samples - SAMPFROM        # onto the segment's own axis
        for s, kind in zip(samples, kinds):     # BUG (unfixed): absolute sample numbers
            if s - BEFORE >= 0 and s + AFTER <= len(signal):
                xs.append(signal[s - BEFORE:s + AFTER])
                ys.append(kind)
    x = np.stack(xs)[:, None]
    if scale is None:
        scale = x.std()                         # the training beats' spread
    return torch.from_numpy(x / scale), torch.tensor(ys), scale


def balanced_accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        pred = model(x).argmax(-1)
    model.train()
    recalls = [(pred[y == c] == c).float().mean().item() for c in range(3)]
    return round(sum(recalls) / 3, 3)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x_train, y_train, scale = beats(rng, 8, fixed)
    x_test, y_test, _ = beats(rng, 3, True, scale)       # held out: cut at the beats
    model = ConvNet(channels=1, classes=3)
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
