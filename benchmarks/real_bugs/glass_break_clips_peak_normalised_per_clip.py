"""Every clip of a sound-event detector's training set divided by its own peak
(``y = y / peak`` per file) before the 1-D CNN sees it. The event class is mostly louder
than the background (the absolute level is the cue the deployed microphone and ADC
actually see), and per-clip peak scaling throws that level away: loud events and quiet
background come out at the same peak, and only a weak spectral difference is left to
learn from. The loss still falls, to a much worse floor.

Reported: "Kacper: usunąć skróty, których na sprzęcie nie ma" ("remove the shortcuts the
hardware does not have") -
https://github.com/Industrial-Data-Science-AGH/SNN_Agent/issues/35 (point 1, per-file
normalisation: encoder_twin.py:wav_to_adc_codes does y = y / peak on every file
separately; measured RMS of positives / negatives 1.39x before normalisation and 0.73x
after, so after normalisation the glass is quieter than the background; the hardware has
no per-file gain control and its ADC sees the absolute level). Here 256-sample clips of
one channel: background noise at a level that varies from clip to clip, events at about
1.4x that level with a slightly brighter spectrum; a two-layer 1-D CNN.
Fix: one global scale for every clip (the training clips' overall RMS).

Measured harm (held-out clip accuracy): 0.611 vs 0.779 for the fixed twin;
seeds + 1000: 0.668 vs 0.769.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._sensor_cnn import ConvNet, accuracy

TITLE = "Kacper: usunąć skróty, których na sprzęcie nie ma"
LINK = "https://github.com/Industrial-Data-Science-AGH/SNN_Agent/issues/35"
EXPECTED = ("NORMALISATION_ERASES_CLASS_SIGNAL", "INPUT_ROWS_STANDARDISED")
STEPS = 250
SAMPLES, BATCH = 256, 64


def clips(rng, n):
    """n one-channel clips (n, 1, SAMPLES) and labels (0 background, 1 event)."""
    y = rng.integers(0, 2, n)
    level = np.exp(rng.normal(0.0, 0.25, n)) * np.where(y == 1, 1.4, 1.0)
    white = rng.standard_normal((n, SAMPLES + 1))
    bright = white[:, 1:] - 0.5 * white[:, :-1]          # a little more high-frequency power
    shape = np.where(y[:, None] == 1, 0.85 * white[:, 1:] + 0.15 * bright, white[:, 1:])
    shape /= shape.std(1, keepdims=True)
    x = (level[:, None] * shape).astype(np.float32)[:, None, :]
    return torch.from_numpy(x), torch.from_numpy(y)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x_train, y_train = clips(rng, 3000)
    x_test, y_test = clips(rng, 1000)
    if fixed:
        scale = x_train.pow(2).mean().sqrt()
        x_train, x_test = x_train / scale, x_test / scale
    else:
        # BUG: every clip divided by its own peak, so every clip ends at the same level
        x_train = x_train / x_train.abs().amax(-1, keepdim=True)
        x_test = x_test / x_test.abs().amax(-1, keepdim=True)
    model = ConvNet(channels=1, classes=2)
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
