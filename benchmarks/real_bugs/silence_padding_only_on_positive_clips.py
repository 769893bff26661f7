"""A call detector trained on clips cut around detections (owl calls, 1-2.5 s, zero-padded
with digital silence to the 3-s input) against negative clips that are 3-s stretches of
background recording, never padded. Only the positive class ever holds exact zeros: "is
there digital silence at the end?" separates the classes perfectly, and is far easier to
learn than the call. Training and validation (built the same way) look excellent; on a
field recording, which is never padded, the detector is useless.

Reported: "make zero_pad_detections also randomly pad the 'no buow' class" -
https://github.com/conservationtechlab/whoot/issues/55 ("there is possible data leakage
... the detection audio is padded with silence whereas the 'no buow' class is already 3
second clips of background audio. This could cause the model to learn silence as the
indicator for a burrowing owl, and not the actual vocalization"; closed with: "decided to do
window expansion of the detections to make them the same duration as the no_buow class").
Here an 8-band x 24-frame log spectrogram: background noise in every clip, a faint call
(a fixed band pattern) over 8-20 frames in positives; a small CNN. Measured (this script,
seed 0, 200 steps): the bug run's last 20 training losses average 0.006, the fixed
twin's 0.15; on unpadded clips (the fixed twin's windows, as in the field) the bug run gets
0.49 of the clips right, the fixed twin 0.97.
Fix: window expansion - cut the positives at the negatives' length from the recording
around the call, so no clip holds padding (or pad both classes alike).
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = "make zero_pad_detections also randomly pad the 'no buow' class"
LINK = "https://github.com/conservationtechlab/whoot/issues/55"
EXPECTED = ("PADDING_PREDICTS_LABEL",)
STEPS = 200
BANDS, FRAMES = 8, 24
CALL = np.array([0.0, 0.2, 0.6, 1.0, 0.6, 0.2, 0.0, 0.0])     # the call's band pattern
CALL_LEVEL = 0.35


def clips(steps, batch_size=32, seed=0, fixed=False):
    """``steps`` batches of (log spectrograms (B, 1, BANDS, FRAMES), call present (B,))."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        present = rng.integers(0, 2, batch_size)
        x = rng.uniform(0.0, 1.0, (batch_size, BANDS, FRAMES))          # background
        for row in np.flatnonzero(present):
            length = rng.integers(8, 21)
            start = rng.integers(0, FRAMES - length + 1)
            x[row, :, start:start + length] += CALL_LEVEL * CALL[:, None]
            if not fixed:
                x[row] = np.roll(x[row], -start, axis=1)    # the detection cut out...
                x[row, :, length:] = 0.0                    # BUG: ...padded with silence
        yield (torch.from_numpy(x[:, None].astype(np.float32)),
               torch.from_numpy(present.astype(np.float32)))


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
                                      nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.out = nn.Linear(8, 1)

    def forward(self, x):
        return self.out(self.features(x).amax(dim=(2, 3))).squeeze(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = Detector()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.BCEWithLogitsLoss(),
                         clips(steps, fixed=fixed), **watch)
