"""A clip-level MFCC feature vector averaged over the wrong axis. ``librosa.feature.mfcc``
returns (n_mfcc, frames) - coefficients down the rows, frames across - and a beginner who
expects (frames, n_mfcc) takes ``np.mean(mfcc, axis=0)``: one number per FRAME, the mean of
its 13 coefficients, instead of one number per COEFFICIENT averaged over time
(``np.mean(mfcc, axis=1)``, or ``np.mean(mfcc.T, axis=0)`` as the tutorials write it). The
per-frame means are dominated by c0, the frame's loudness; the spectral shape that tells the
classes apart is averaged away. The MLP trains, the loss falls a little, accuracy stays low.

Reported: "Why does librosa librosa.feature.mfcc() spit out a 2D array?" -
https://thinbug.com/q/36182697 (the Stack Overflow question, mirrored: "I was expecting a
1D array of coefficients, why is it 2D? What are the dimensions?"; the answers: "one
dimension is time and the other is the different frequencies ... The mfccs exists down the
columns, not across each row!", transpose it: "mfccs.T # Now mfccs[0] (the first row)
refers to the first mfcc"). Here 6 synthetic classes of 20-band x 16-frame mel spectrograms
(a class is a spectral envelope, each clip its own loudness), 13 MFCCs per frame, the
clip's averaged MFCC vector standardised and fed to a 64-unit MLP, Adam 1e-3, batch 32.
Fix: average over the frames axis (13 features, one per coefficient).
Measured (held-out accuracy on 1000 new clips, 300 steps): 0.23 vs 1.00; seeds + 1000:
0.21 vs 1.00.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._audio_beginner import (CLASSES, accuracy, power_mel, standardise,
                                                  to_mfcc)

TITLE = "Why does librosa librosa.feature.mfcc() spit out a 2D array?"
LINK = "https://thinbug.com/q/36182697"
EXPECTED = ("POOLED_OVER_FEATURES",)
STEPS = 300
BATCH = 32


def clip_features(mfcc, fixed):
    """(clips, MFCCS, FRAMES) -> one vector per clip."""
    if fixed:
        return mfcc.mean(dim=2)             # mean over frames: one value per coefficient
    return mfcc.mean(dim=1)                 # BUG: np.mean(mfcc, axis=0) per clip: per frame


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    power, y = power_mel(3000, seed=0)
    power_test, y_test = power_mel(1000, seed=1)
    x = clip_features(to_mfcc(power), fixed)
    x_test = clip_features(to_mfcc(power_test), fixed)
    mean, std = x.mean(0), x.std(0)
    x, x_test = (x - mean) / std, (x_test - mean) / std
    model = nn.Sequential(nn.Linear(x.shape[1], 64), nn.ReLU(), nn.Linear(64, CLASSES))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(x), (BATCH,))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[rows]), y[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
