"""Motor-imagery epochs cut at the recording's first N triggers, whatever they mark, instead
of at the N motor-imagery onsets. Each trial of the recording carries three triggers (the
instruction, the imagery onset, the break), so taking the first N of the 3N triggers cuts
the epochs from the first third of the session only, at instruction, imagery and break
onsets in turn, and pairs epoch j (a stage of trial j // 3) with the label of trial j: two
epochs in three hold no imagery at all and almost none holds the imagery its label names.
The tensors have the right shapes and counts (N epochs, N labels), cross-entropy falls as
the network memorises the pairs, and nothing errors.

Reported: "Fix critical trigger alignment bug in Liu2024 dataset" -
https://github.com/NeuroTechX/moabb/pull/1016 (the dataset's event builder selected the
first 40 of the 120 stimulus-channel triggers, mixing instruction, imagery and break
onsets, so about 65% of the epochs had mismatched data and labels; within-session scores
were below chance, 0.08-0.18, and rose to 0.44-0.59 once only the imagery-onset triggers,
value 2, were kept; the same PR also fixed a swapped left/right label map, not reproduced
here). Here: a synthetic 6-channel recording at 64 Hz, 240 trials of four imagery classes
(each suppresses the 10 Hz rhythm over its own pair of channels and adds 20 Hz power
there); the instruction window carries a cue response common to all classes, the break
window only the resting rhythm; one-second epochs, a small temporal ConvNet, Adam.
Fix: cut the epochs at the triggers whose value is 2 (the imagery onsets).

Measured (held-out accuracy on 160 trials of a second session, cut at the imagery onsets):
seed 0, 0.28 for the bug (chance is 0.25) against 0.99 for the fixed twin; seeds shifted
by 1000, 0.28 against 0.96.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._biosignals import ConvNet, accuracy, oscillations
from benchmarks.real_bugs._common import index_batches

TITLE = "Fix critical trigger alignment bug in Liu2024 dataset"
LINK = "https://github.com/NeuroTechX/moabb/pull/1016"
EXPECTED = ("TARGETS_UNRELATED_TO_INPUTS", "LABELS_MISALIGNED")
STEPS = 300
RATE = 64                   # Hz; one-second stages and epochs
CHANNELS, CLASSES = 6, 4
INSTRUCTION, IMAGERY, BREAK = 1, 2, 3


def session(trials, rng):
    """A continuous recording (channels, samples), its triggers (onset sample, value) three
    per trial, and the trials' labels."""
    labels = rng.integers(0, CLASSES, trials)
    rest = np.full((trials, CHANNELS, 2), [1.0, 0.2])            # 10 Hz rhythm, little beta
    imagery = rest.copy()
    for trial, label in enumerate(labels):                       # class k acts on 2 channels
        imagery[trial, [label, (label + 1) % CHANNELS], :] = [0.25, 0.9]
    stages = [oscillations(rest, (10, 20), RATE, RATE, rng),
              oscillations(imagery, (10, 20), RATE, RATE, rng),
              oscillations(rest, (10, 20), RATE, RATE, rng)]
    t = np.arange(RATE) / RATE
    stages[0] += (2.0 * np.exp(-((t - 0.3) / 0.08) ** 2)).astype(np.float32)   # cue response
    windows = np.stack(stages, 1).reshape(trials * 3, CHANNELS, RATE)
    signal = np.concatenate(list(windows), axis=1)
    onsets = np.arange(trials * 3) * RATE
    values = np.tile([INSTRUCTION, IMAGERY, BREAK], trials)
    return signal, np.stack([onsets, values], 1), labels


def epochs(signal, onsets):
    return torch.from_numpy(np.stack([signal[:, s:s + RATE] for s in onsets]))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    signal, triggers, labels = session(240, rng)
    if fixed:
        onsets = triggers[triggers[:, 1] == IMAGERY, 0]          # the imagery onsets only
    else:
        onsets = triggers[:len(labels), 0]                       # BUG: first N of all triggers
    x, y = epochs(signal, onsets), torch.from_numpy(labels)
    held_signal, held_triggers, held_labels = session(160, rng)
    x_held = epochs(held_signal, held_triggers[held_triggers[:, 1] == IMAGERY, 0])
    y_held = torch.from_numpy(held_labels)
    model = ConvNet(CHANNELS, CLASSES)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, 32, seed=0):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
