"""Sensor windows of the test split standardised with the test split's own per-channel mean
and spread, because the data loader builds a fresh normaliser for every split it loads.
For wearable accelerometry the per-channel mean IS the signal: gravity's direction tells
lying from sitting from standing. A test recording whose activity mix differs from the
training one (a subject who spends most of it lying or sitting) gets its gravity offsets
subtracted away and its axes rescaled, so postures land where other postures were
learned. Training itself is untouched and healthy; the validation loss, computed on the
self-normalised split, is what goes wrong.

Reported: "数据泄露风险" (data leakage risk) -
https://github.com/thuml/Time-Series-Library/issues/816 (in the classification experiment
the TRAIN and TEST datasets are built separately and each initialisation runs its own
Normalizer over its own feature frame, so "the training set is standardised with its own
mean and variance, and the test set with its own"; a contributor confirmed on main that
the UEA loader creates a fresh Normalizer for every split and proposed passing the
training statistics to the TEST loaders). Here: 3-axis accelerometer windows (2 s at 32
Hz) of four activities (lying, sitting, standing, walking) from a training pool with
every activity equally often, and a held-out subject's recording that is 80% lying and
sitting; per-channel standardisation over all windows and samples of a split, a small
temporal ConvNet, Adam, the validation loss passed to the monitor every epoch.
Fix: standardise the test split with the training split's statistics.

Measured (held-out accuracy on the skewed subject): seed 0, 0.93 for the bug against 0.98
for the fixed twin; seeds shifted by 1000, 0.81 against 0.97. (With a test subject 90% lying and
sitting, the fixed twin's first validation loss, 0.22 times the training loss on that easy
split, drew VALIDATION_LOSS_MISSCALED.)
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._biosignals import ConvNet, accuracy
from benchmarks.real_bugs._common import index_batches

TITLE = "数据泄露风险"
LINK = "https://github.com/thuml/Time-Series-Library/issues/816"
EXPECTED = ("VALIDATION_SCALED_ON_ITSELF",)
STEPS = 250
EPOCH = 25                       # batches of 32 in the training pool
RATE, SAMPLES = 32, 64
# gravity direction per activity (x, y, z in g): lying, sitting, standing, walking
GRAVITY = np.array([[1.0, 0.0, 0.1], [0.1, 0.35, 0.93], [0.0, 0.1, 1.0], [0.0, 0.1, 1.0]])


def windows(mix, count, rng):
    labels = rng.choice(4, count, p=mix)
    tilt = rng.normal(0, 0.08, (count, 3))                   # how the device sits today
    x = (GRAVITY[labels] + tilt)[:, :, None] * np.ones((1, 1, SAMPLES))
    t = np.arange(SAMPLES) / RATE
    step = rng.uniform(1.6, 2.2, (count, 1))                  # steps per second
    phase = rng.uniform(0, 2 * np.pi, (count, 1))
    walking = labels == 3
    x[walking, 2] += 0.4 * np.sin(2 * np.pi * step[walking] * t + phase[walking])
    x[walking, 1] += 0.2 * np.sin(np.pi * step[walking] * t + phase[walking])
    x += 0.05 * rng.standard_normal(x.shape)
    return x.astype(np.float32), labels


class Normalizer:
    """Per-channel standardisation over every window and sample of the frame it is fit on."""

    def fit(self, x):
        self.mean, self.std = x.mean((0, 2), keepdims=True), x.std((0, 2), keepdims=True)
        return self

    def normalize(self, x):
        return torch.from_numpy((x - self.mean) / self.std)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    raw, labels = windows([0.25] * 4, 800, rng)
    raw_test, test_labels = windows([0.45, 0.35, 0.1, 0.1], 300, rng)   # a skewed subject
    train_norm = Normalizer().fit(raw)
    x, y = train_norm.normalize(raw), torch.from_numpy(labels)
    if fixed:
        x_test = train_norm.normalize(raw_test)
    else:
        x_test = Normalizer().fit(raw_test).normalize(raw_test)   # BUG: its own statistics
    y_test = torch.from_numpy(test_labels)
    model = ConvNet(3, 4)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for done, index in enumerate(index_batches(len(x), steps, 32, seed=0), start=1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % EPOCH == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = F.cross_entropy(model(x_test), y_test)
                model.train()
            mon.step(loss, val_loss=val_loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
