"""A sound-event detector whose configured sample rate was changed (24 kHz -> 16 kHz) while
the recordings were still read at their native 24 kHz without resampling. The feature
extractor takes every array as 16 kHz audio: each feature frame covers 2/3 of the time it
should, and the clip is cut to the configured length. The per-frame labels, computed from
the events' onsets and offsets in seconds, still follow real time. Frames and labels agree
at the start of a clip and drift apart along it: by the end, frame i shows what happened at
2/3 of label i's time. Nothing fails; the scores just get worse.

Reported: "Sample rate error" - https://github.com/sharathadavanne/doa-net/issues/4 ("when
I changed it from 24000 to 16000, the results got very bad. Turns out the code doesn't do
the downsampling, but the labels get misaligned"; the fix the reporter gives resamples
every channel to the configured rate in ``_load_audio``). Here a clip is 48 ticks of real
time (8 bands each); events of 3 kinds, each with its own band profile, last 6-12 ticks;
the detector (three Conv1d layers over the frames) labels each of 32 frames silence or an
event kind. Measured (this script, seed 0, 200 steps): the bug run's last 10 losses average 0.90
and it gets 67% of the frames right on a fresh batch of its own pipeline; the fixed twin
0.006 and 100%.
Fix: resample to the configured rate before framing (here: frame i reads tick 1.5 i, the
tick its label is for).
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = "Sample rate error"
LINK = "https://github.com/sharathadavanne/doa-net/issues/4"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 200
TICKS, FRAMES, BANDS, KINDS = 48, 32, 8, 3
RATIO = TICKS / FRAMES          # 24 kHz recordings, 16 kHz configured
NOISE = 0.4
PROFILES_SEED = 7             # the event kinds' band profiles (one draw for every batch)


def clips(steps, batch_size=32, seed=0, fixed=False):
    """``steps`` batches of (features (B, BANDS, FRAMES), frame labels (B, FRAMES))."""
    profiles = np.random.default_rng(PROFILES_SEED).uniform(0.0, 1.0, (KINDS + 1, BANDS))
    profiles[0] = 0.0                                   # silence: noise only
    rng = np.random.default_rng(seed)
    label_ticks = np.minimum(np.round(np.arange(FRAMES) * RATIO).astype(int), TICKS - 1)
    for _ in range(steps):
        activity = np.zeros((batch_size, TICKS), dtype=np.int64)
        for row in range(batch_size):
            for _event in range(3):
                length = rng.integers(6, 13)
                onset = rng.integers(0, TICKS - length)
                activity[row, onset:onset + length] = rng.integers(1, KINDS + 1)
        spectrum = profiles[activity] + NOISE * rng.random((batch_size, TICKS, BANDS))
        labels = activity[:, label_ticks]               # from the events' times in seconds
        if fixed:
            frames = spectrum[:, label_ticks]           # resampled: frame i = tick 1.5 i
        else:
            frames = spectrum[:, :FRAMES]               # BUG: 24 kHz audio framed as 16 kHz
        yield (torch.from_numpy(frames.transpose(0, 2, 1).astype(np.float32)),
               torch.from_numpy(labels))


def detector():
    return nn.Sequential(nn.Conv1d(BANDS, 32, 5, padding=2), nn.ReLU(),
                         nn.Conv1d(32, 32, 5, padding=2), nn.ReLU(),
                         nn.Conv1d(32, KINDS + 1, 1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = detector()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(),
                         clips(steps, fixed=fixed), **watch)
