"""The power-line notch filter run along the channel axis of a (trials, channels, samples)
array instead of the time axis. Along an axis of 8 channels the "frequencies" are 0, 50,
100, 150 and 200 Hz at the recording's rate: none falls in the 60 Hz stop band, so the
filter changes nothing and the line noise, far stronger than the high-gamma activity the
classes differ by, reaches the network whole. No error, no warning from the filter; the
loss falls as the network fits what it can through the hum.

Reported: "Notch filtering operates on the channels dimension rather than the time
dimension" - https://github.com/catalystneuro/ecogVIS/issues/99 (after a documentation
error in the processing library, the notch step of the ECoG pipeline filtered along the
channel dimension: "the notch filtering effectively didn't occur", and the channel axis
was padded besides; fixed in ecogVIS#100 by filtering along time). Here: 8 ECoG channels
at 400 Hz, 0.4 s trials, four classes of high-gamma power (45 or 75 Hz over one half of
the grid or the other) under 60 Hz line noise of trial-varying strength (log-uniform, 2 to
20 times the high-gamma amplitude, spatially correlated); an FFT notch removing 57.5-62.5
Hz; a small temporal ConvNet, Adam.
Fix: notch along the time axis (axis=-1).

Measured (held-out accuracy, 600 trials filtered the same way as training): seed 0, 0.25
for the bug (chance) against 1.00 for the fixed twin; seeds shifted by 1000, 0.25 against
1.00.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._biosignals import ConvNet, accuracy, oscillations
from benchmarks.real_bugs._common import index_batches

TITLE = "Notch filtering operates on the channels dimension rather than the time dimension"
LINK = "https://github.com/catalystneuro/ecogVIS/issues/99"
EXPECTED = ("LINE_NOISE_DOMINATES_INPUTS",)
STEPS = 300
RATE, SAMPLES = 400, 160            # 0.4 s: 60 Hz falls on an FFT bin (2.5 Hz apart)
CHANNELS, CLASSES = 8, 4
LINE, STOP = 60.0, 2.5              # Hz


def notch(x, axis):
    """Zero the spectrum within STOP Hz of the line frequency along ``axis``."""
    n = x.shape[axis]
    spectrum = np.fft.rfft(x, axis=axis)
    keep = np.abs(np.fft.rfftfreq(n, 1 / RATE) - LINE) > STOP
    shape = [1] * x.ndim
    shape[axis] = -1
    return np.fft.irfft(spectrum * keep.reshape(shape), n=n, axis=axis).astype(np.float32)


def trials(count, rng):
    labels = rng.integers(0, CLASSES, count)
    amplitudes = np.zeros((count, CHANNELS, 2))
    for row, label in enumerate(labels):                 # band 45 or 75 Hz, half the grid
        half = slice(0, 4) if label < 2 else slice(4, 8)
        amplitudes[row, half, label % 2] = 0.6
    x = oscillations(amplitudes, (45, 75), SAMPLES, RATE, rng, noise=0.5)
    t = np.arange(SAMPLES) / RATE
    strength = np.exp(rng.uniform(np.log(1.2), np.log(12.0), (count, 1, 1)))
    spread = rng.uniform(0.6, 1.0, (count, CHANNELS, 1))
    phase = rng.uniform(0, 2 * np.pi, (count, 1, 1))
    hum = strength * spread * np.sin(2 * np.pi * LINE * t + phase)
    return (x + hum).astype(np.float32), labels


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    axis = -1 if fixed else 1            # BUG: axis 1 of (trials, channels, samples)
    raw, labels = trials(1600, rng)
    raw_held, held_labels = trials(600, rng)
    x, y = torch.from_numpy(notch(raw, axis)), torch.from_numpy(labels)
    x_held = torch.from_numpy(notch(raw_held, axis))
    model = ConvNet(CHANNELS, CLASSES)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, 32, seed=0):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, torch.from_numpy(held_labels))
    return mon
