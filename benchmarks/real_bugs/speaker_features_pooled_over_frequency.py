"""A speaker classifier whose convolutional trunk ends in an average pool meant to run over
TIME (keeping a feature per frequency row: what a speaker's voice is) runs over FREQUENCY
instead: ``nn.AvgPool2d`` got its kernel as (frequency rows, 1) where (1, time columns)
was meant. The trunk's feature map here is as tall as it is wide, so the flattened size is
what the head expects and nothing fails; the head now sees per-frame features with the
spectral shape averaged away, and where in the segment each syllable fell.

Reported: "Minor issue with avg pooling" - https://github.com/qqueing/DeepSpeaker-pytorch/issues/12
("avgpool is supposed to be on the temporal dimension by design, and in the commited version
of the code, the avg pooling is done on frequency domain. avg pool2d is supposed to give
[F, T] = [4, 2] => [4,1] but instead it gives [4, 2] => [1, 2]"; a second reader: "I find
the same problem when I read the code"). In the reporter's configuration the sizes differed
and the head raised; with a square segment (here 16 bands x 16 frames) they agree and the
bug trains silently. Ten speakers, each with its own formant height (one peak of the same shape); each frame is
voiced or not at random. Measured (this script, seed 0, 200 steps): the bug run's last 20
losses average 0.75 (accuracy on a fresh batch 0.89); the fixed twin's 0.07 (0.99).
Fix: pool over the time axis, ``nn.AvgPool2d((1, width))`` (or ``x.mean(dim=3)``).
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = "Minor issue with avg pooling"
LINK = "https://github.com/qqueing/DeepSpeaker-pytorch/issues/12"
EXPECTED = ("POOLED_OVER_FEATURES",)
STEPS = 200
BANDS = FRAMES = 16
SPEAKERS = 10
# each speaker's spectral envelope: one formant-like peak, the same shape at its own height
CENTRES = 2.0 + 1.2 * np.arange(SPEAKERS)
ENVELOPES = np.exp(-0.5 * ((np.arange(BANDS)[None, :] - CENTRES[:, None]) / 1.5) ** 2)


class SpeakerNet(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.trunk = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                   nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        side = BANDS // 4
        if fixed:
            self.pool = nn.AvgPool2d((1, side))     # over time: (16, 4, 4) -> (16, 4, 1)
        else:
            self.pool = nn.AvgPool2d((side, 1))     # BUG: over frequency -> (16, 1, 4)
        self.head = nn.Linear(16 * side, SPEAKERS)

    def forward(self, spectrogram):                 # (batch, 1, bands, frames)
        return self.head(self.pool(self.trunk(spectrogram)).flatten(1))


def segments(steps, batch_size=64, seed=0):
    """``steps`` batches of (log spectrograms (B, 1, BANDS, FRAMES), speaker ids (B,))."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        speaker = rng.integers(0, SPEAKERS, batch_size)
        voiced = rng.random((batch_size, 1, FRAMES)) < 0.5
        loudness = rng.uniform(0.5, 1.5, (batch_size, 1, FRAMES))
        x = ENVELOPES[speaker][:, :, None] * voiced * loudness
        x = x + 0.8 * rng.random((batch_size, BANDS, FRAMES))
        yield torch.from_numpy(x[:, None].astype(np.float32)), torch.from_numpy(speaker)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = SpeakerNet(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), segments(steps), **watch)
