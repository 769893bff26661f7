"""EEG channels standardised together with the recording's extra channels, one mean and
one spread over all of them, when the extra channels are in other units at another scale.
The EEG is stored in volts (tens of microvolts, ~1e-5) and the auxiliary channels (here an
accelerometer in g and a skin-conductance channel in microsiemens) are of order one to
ten, so the shared spread is set by the auxiliary channels and the EEG comes out at ~1e-5
of unit scale: the rhythms the classes differ by reach the network as a near-constant.
The loss falls a little (the auxiliary channels carry a weak cue), nothing errors, and the
network never learns to read the EEG.

Reported: "Deep1010 Normalizing by channel type" - https://github.com/SPOClab-ca/dn3/issues/40
(labelled bug: the Deep1010 mapping normalised all channels together, "probably not smart,
particularly since there is support for 'extra' channels, which could be at completely
different scales to the EEG channels"; the fix maps first and then normalises each channel
group - EEG, EOG, reference, extra - on its own). Here: 8 EEG channels in volts carrying a
four-class rhythm pattern (10 and 20 Hz power over class-specific channels) and 2 extra
channels (a 1 g gravity offset with movement, and skin conductance around 5 uS with a weak
class drift), one-second windows at 64 Hz, a small temporal ConvNet, Adam.
Fix: standardise the EEG group and the extra group each with its own statistics.

Measured (held-out accuracy, 600 windows): seed 0, 0.28 for the bug (chance is 0.25)
against 1.00 for the fixed twin; seeds shifted by 1000, 0.29 against 1.00.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._biosignals import ConvNet, accuracy, oscillations
from benchmarks.real_bugs._common import index_batches

TITLE = "Deep1010 Normalizing by channel type"
LINK = "https://github.com/SPOClab-ca/dn3/issues/40"
EXPECTED = ("INPUT_CHANNELS_ON_DIFFERENT_SCALES",)
STEPS = 300
RATE = 64
EEG, EXTRA, CLASSES = 8, 2, 4
VOLTS = 2e-5                           # EEG amplitude unit: 20 microvolts


def recording(count, rng):
    labels = rng.integers(0, CLASSES, count)
    amplitudes = np.full((count, EEG, 2), [1.0, 0.3])
    for row, label in enumerate(labels):
        amplitudes[row, [2 * label, 2 * label + 1]] = [0.3, 1.2]
    eeg = oscillations(amplitudes, (10, 20), RATE, RATE, rng) * VOLTS
    movement = oscillations(np.full((count, 1, 1), 0.3), (2,), RATE, RATE, rng, noise=0.2)
    gravity = 1.0 + movement                                        # accelerometer, g
    conductance = (5.0 + 0.15 * labels[:, None, None]               # skin conductance, uS
                   + rng.normal(0, 1.0, (count, 1, 1))
                   + 0.05 * rng.standard_normal((count, 1, RATE))).astype(np.float32)
    x = np.concatenate([eeg, gravity, conductance], 1)
    return x, labels


def standardise(x, train, groups):
    """Each group of channels shifted and scaled by the training windows' statistics."""
    out = x.copy()
    for group in groups:
        mean, std = train[:, group].mean(), train[:, group].std()
        out[:, group] = (x[:, group] - mean) / std
    return torch.from_numpy(out)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    raw, labels = recording(1600, rng)
    raw_held, held_labels = recording(600, rng)
    if fixed:
        groups = [slice(0, EEG), slice(EEG, EEG + EXTRA)]      # EEG and extras apart
    else:
        groups = [slice(0, EEG + EXTRA)]                       # BUG: all channels together
    x, y = standardise(raw, raw, groups), torch.from_numpy(labels)
    x_held = standardise(raw_held, raw, groups)
    model = ConvNet(EEG + EXTRA, CLASSES)
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
