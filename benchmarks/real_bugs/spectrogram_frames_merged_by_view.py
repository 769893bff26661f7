"""A spectrogram mask estimator (the audio stream of "Looking to Listen") merges its
convolution channels with the frequency bins of each time frame before a recurrent layer
over the frames - but does it with ``view``: the conv output (batch, channels, frames,
bins) is viewed as (batch, channels * bins, frames, 1). ``view`` only regroups memory in
order, so the "frame" axis it produces is not the time axis: the column it calls frame t
gathers values of many frames and channels. The sizes match what the recurrent layer
expects, so nothing fails; the mask at frame t is computed from the wrong frames.

Reported: "Reshaping issue" - https://github.com/vitrioil/Speech-Separation/issues/4 ("You
are doing ``input.view(B, -1, 298, 1)`` and that is not correct ... You have to do a
permutation ``permute(0,2,1,3)`` and then the reshaping ... What you are doing is mixing the
data"; the maintainer: "Thanks for pointing out the mistake. It was fixed when the repo was
merged to asteroid"). Here a noisy spectrogram of 16 frames x 8 bins (tones that start and
stop at random frames, under noise); the model (Conv2d, a GRU over the frames, a per-frame
head) predicts the ideal ratio mask. Measured (this script, seed 0, 200 steps): the bug
run's last 20 losses average 0.062, the fixed twin's 0.011 (the mask error of predicting
the average mask, with no model at all: 0.070).
Fix: ``h.permute(0, 2, 1, 3).reshape(batch, frames, channels * bins)``.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = "Reshaping issue"
LINK = "https://github.com/vitrioil/Speech-Separation/issues/4"
EXPECTED = ("RESHAPE_USED_AS_TRANSPOSE",)
STEPS = 200
FRAMES, BINS, CHANNELS = 16, 8, 4


class MaskNet(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.conv = nn.Sequential(nn.Conv2d(1, CHANNELS, 3, padding=1), nn.ReLU())
        self.rnn = nn.GRU(CHANNELS * BINS, 32, batch_first=True, bidirectional=True)
        self.head = nn.Linear(64, BINS)

    def forward(self, noisy):                       # (batch, 1, frames, bins)
        h = self.conv(noisy)                        # (batch, channels, frames, bins)
        b = h.shape[0]
        if self.fixed:
            frames = h.permute(0, 2, 1, 3).reshape(b, FRAMES, CHANNELS * BINS)
        else:
            # BUG: view regroups memory in order; its "frame" axis is not the time axis
            frames = h.view(b, -1, FRAMES, 1).squeeze(-1).transpose(1, 2)
        out, _ = self.rnn(frames)                   # (batch, frames, 64)
        return torch.sigmoid(self.head(out)).unsqueeze(1)


def spectrograms(steps, batch_size=32, seed=0):
    """``steps`` batches of (noisy magnitude (B, 1, FRAMES, BINS), ideal ratio mask, alike)."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        clean = np.zeros((batch_size, FRAMES, BINS))
        for row in range(batch_size):
            for _tone in range(3):
                start = rng.integers(0, FRAMES - 3)
                stop = rng.integers(start + 2, FRAMES + 1)
                clean[row, start:stop, rng.integers(0, BINS)] += rng.uniform(0.5, 1.5)
        noise = rng.uniform(0.0, 0.6, (batch_size, FRAMES, BINS))
        noisy = clean + noise
        mask = clean / noisy
        yield (torch.from_numpy(noisy[:, None].astype(np.float32)),
               torch.from_numpy(mask[:, None].astype(np.float32)))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = MaskNet(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.MSELoss(), spectrograms(steps), **watch)
