"""A recording classifier meant to max-pool its per-frame CNN features ACROSS the time
frames pools along the features instead: the features of all frames are reshaped to
(batch, frames, features, 1) and ``nn.MaxPool2d((frames, 1))`` slides its window of
``frames`` rows down the feature axis. The flattened result has the size the head expects
(frames x features / frames), so nothing fails; the model keeps each frame apart (no
invariance to when the event happens) and merges unrelated neighbouring features.

Reported: "MaxCNN query" - https://github.com/numediart/EEGLearn-Pytorch/issues/20 ("the
self.pool layer appears to be applying a maxpool kernel of size (n_windows, 1) (i.e. 7, 1)
over a reshaped tensor of shape (x.shape[0], x.shape[1], 2048, 1). The result is that the
kernel of height 7 works down the 2048 rows ... I was expecting the maxpooling to occur
across the frames (i.e. the temporal dimension)", as the paper says: "max-pooling over
ConvNet outputs across time frames"). Here each recording is 4 frames of 8x8 pixels: one of
them, at a random time, holds a digit, the others faint noise; a small CNN reads every
frame. Fix: the maximum over the frame axis, ``features.amax(dim=1)``.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification, train_watched

TITLE = "MaxCNN query"
LINK = "https://github.com/numediart/EEGLearn-Pytorch/issues/20"
EXPECTED = ("POOLED_OVER_FEATURES",)
STEPS = 200
FRAMES, FEATURES = 4, 64
NOISE = 0.1


class MaxCNN(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.frame = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                   nn.Flatten(), nn.Linear(16 * 4 * 4, FEATURES), nn.ReLU())
        self.pool = nn.MaxPool2d((FRAMES, 1))
        self.out = nn.Linear(FEATURES, 10)

    def forward(self, recordings):                  # (batch, frames, 1, 8, 8)
        b = recordings.shape[0]
        features = self.frame(recordings.reshape(b * FRAMES, 1, 8, 8)).reshape(b, FRAMES, -1)
        if self.fixed:
            pooled = features.amax(dim=1)           # across the frames
        else:
            # BUG: a window of FRAMES rows slides down the feature axis of each frame
            pooled = self.pool(features.reshape(b, FRAMES, FEATURES, 1)).reshape(b, -1)
        return self.out(pooled)


def recordings(steps, batch_size=64, seed=0):
    """``steps`` batches of 4-frame recordings: one frame (at a random time) holds a digit,
    the others noise; the label is the digit's."""
    x, y = classification(images=True)
    rng = np.random.default_rng(seed)
    generator = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        pick = torch.from_numpy(rng.integers(0, len(x), batch_size))
        when = torch.from_numpy(rng.integers(0, FRAMES, batch_size))
        frames = NOISE * torch.rand(batch_size, FRAMES, 1, 8, 8, generator=generator)
        frames[torch.arange(batch_size), when] = x[pick]
        yield frames, y[pick]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = MaxCNN(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), recordings(steps), **watch)
