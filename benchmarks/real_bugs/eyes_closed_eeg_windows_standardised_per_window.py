"""EEG windows for an eyes-open / eyes-closed decoder each z-scored per channel over their
own samples before the CNN. Closing the eyes raises the alpha rhythm (and the overall
power) of the posterior channels; per-window standardisation divides every window by its
own standard deviation and so removes exactly that absolute power difference, leaving only
the small change in the spectrum's shape to learn from. Training runs normally, to a poor
floor.

Reported: "Add eyes-open/closed CNN applied project" -
https://github.com/eegdash/EEGDash/pull/419 ("Why the original settings scored near
chance": "Per-window standardization removes the absolute alpha-power difference between
the two conditions; keeping the signal in microvolts (or per-recording standardization)
gains 10 to 15 points on every participant tested"). Here 4-channel windows of 2 s at
64 Hz: 1/f-like background plus a 10 Hz alpha rhythm, eyes closed with about 1.45x the
alpha and 1.3x the background amplitude (the spectrum's shape changes little), the level
varying a little from window to window; a two-layer 1-D CNN.
Fix: keep the windows on one scale (microvolts divided by the training set's standard
deviation per channel).

Measured harm (held-out window accuracy): 0.606 vs 0.813 for the fixed twin;
seeds + 1000: 0.716 vs 0.859.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._sensor_cnn import ConvNet, accuracy

TITLE = "Add eyes-open/closed CNN applied project"
LINK = "https://github.com/eegdash/EEGDash/pull/419"
EXPECTED = ("NORMALISATION_ERASES_CLASS_SIGNAL", "INPUT_ROWS_STANDARDISED")
STEPS = 250
EEG_CHANNELS, RATE, SAMPLES, BATCH = 4, 64, 128, 64


def eeg_windows(rng, n):
    """n windows (n, EEG_CHANNELS, SAMPLES) in microvolts and labels (1 = eyes closed)."""
    y = rng.integers(0, 2, n)
    t = np.arange(SAMPLES) / RATE
    white = rng.standard_normal((n, EEG_CHANNELS, SAMPLES + 8))
    background = np.cumsum(white, -1)[..., 8:] - np.cumsum(white, -1)[..., :-8]   # low-pass
    background /= background.std(-1, keepdims=True)
    freq = rng.uniform(9.0, 11.0, (n, 1, 1))
    phase = rng.uniform(0, 2 * np.pi, (n, EEG_CHANNELS, 1))
    alpha = np.sqrt(2) * np.sin(2 * np.pi * freq * t + phase)
    closed = (y == 1)[:, None, None]
    level = 10.0 * np.exp(rng.normal(0.0, 0.15, (n, 1, 1)))         # microvolts, per window
    x = level * (np.where(closed, 1.3, 1.0) * background
                 + np.where(closed, 1.45, 1.0) * 0.6 * alpha)
    return torch.from_numpy(x.astype(np.float32)), torch.from_numpy(y)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x_train, y_train = eeg_windows(rng, 2000)
    x_test, y_test = eeg_windows(rng, 1000)
    if fixed:
        scale = x_train.std(dim=(0, 2), keepdim=True)
        x_train, x_test = x_train / scale, x_test / scale
    else:
        # BUG: every window standardised per channel over its own samples
        def standardise(x):
            return (x - x.mean(-1, keepdim=True)) / x.std(-1, keepdim=True)
        x_train, x_test = standardise(x_train), standardise(x_test)
    model = ConvNet(channels=EEG_CHANNELS, classes=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(x_train), (BATCH,))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x_train[rows]), y_train[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
