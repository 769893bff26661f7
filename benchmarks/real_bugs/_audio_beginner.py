"""Data and models the beginner audio-classification cases of batch 275 share: synthetic
"clips" as mel power spectrograms (MELS bands x FRAMES frames). Each class is a spectral
envelope (a few mel bands louder than the rest, the same in every frame up to a slow drift);
each clip has its own loudness (a gain of +-15 dB), a small random tilt and noise, so a
model must read the spectral shape, not the level. Helpers turn them into log-mel (dB, as
``librosa.power_to_db(ref=np.max)`` does), MFCCs (a DCT-II over the mel axis) and
standardised inputs. Every draw goes through ``np.random.default_rng`` with an integer
seed, so ``--shift-seeds`` moves them."""
import numpy as np
import torch
from torch import nn

MELS, FRAMES, CLASSES, MFCCS = 20, 16, 6, 13


def _templates(seed):
    rng = np.random.default_rng(seed + 7)
    templates = np.zeros((CLASSES, MELS))
    for k in range(CLASSES):
        bands = rng.choice(MELS, size=3, replace=False)
        templates[k, bands] = rng.uniform(8.0, 14.0, 3)       # dB above the floor
    return templates


def power_mel(count, seed=0, songs=None, song_strength=0.0, noise=4.0, class_scale=1.0):
    """(count, MELS, FRAMES) float32 mel power spectrograms and (count,) int64 labels.
    ``songs``: optional (count,) song ids; each song adds its own fixed spectral pattern
    (``song_strength`` dB) to all its slices, and all of a song's slices share its label.
    ``class_scale`` multiplies the class envelopes (below 1: a weaker class signal)."""
    rng = np.random.default_rng(seed)
    templates = _templates(0)
    labels = rng.integers(0, CLASSES, count)
    if songs is not None:
        labels = np.random.default_rng(seed + 2).integers(0, CLASSES, int(songs.max()) + 1)[songs]
    db = np.broadcast_to(class_scale * templates[labels][:, :, None], (count, MELS, FRAMES)).copy()
    if songs is not None:
        pattern = np.random.default_rng(seed + 1).normal(0.0, song_strength,
                                                          (int(songs.max()) + 1, MELS))
        db += pattern[songs][:, :, None]
    db += rng.uniform(-15.0, 15.0, (count, 1, 1))                        # loudness
    db += rng.normal(0.0, 2.0, (count, 1, 1)) * np.linspace(-1, 1, MELS)[None, :, None]
    db += rng.normal(0.0, noise, (count, MELS, FRAMES))                  # noise
    db -= 40.0
    return (torch.from_numpy((10.0 ** (db / 10.0)).astype(np.float32)),
            torch.from_numpy(labels.astype(np.int64)))


def to_db(power):
    """10 log10(power / max over the clip), floored at -80 dB (power_to_db(ref=np.max))."""
    ref = power.amax(dim=(1, 2), keepdim=True)
    return (10.0 * torch.log10(power / ref)).clamp(min=-80.0)


def to_mfcc(power):
    """(count, MFCCS, FRAMES): DCT-II (orthonormal) of the dB mel spectrogram over the mel
    axis, librosa's layout (coefficients down the rows, frames across)."""
    n = torch.arange(MELS, dtype=torch.float32)
    k = torch.arange(MFCCS, dtype=torch.float32)[:, None]
    basis = torch.cos(np.pi / MELS * (n + 0.5) * k) * np.sqrt(2.0 / MELS)
    basis[0] /= np.sqrt(2.0)
    db = 10.0 * torch.log10(power)
    return torch.einsum("km,cmf->ckf", basis, db)


def standardise(train, *others):
    """Scale every tensor with the training set's mean and standard deviation."""
    mean, std = train.mean(), train.std()
    return [(t - mean) / std for t in (train,) + others]


def accuracy(model, x, y, eval_mode=True):
    was = model.training
    model.train(not eval_mode)
    with torch.no_grad():
        correct = (model(x).argmax(1) == y).float().mean().item()
    model.train(was)
    return round(correct, 3)


class SpectrogramCNN(nn.Module):
    """Tutorial CNN: (B, 1, MELS, FRAMES) -> 2 conv/ReLU/pool blocks -> dense -> CLASSES."""
    def __init__(self, batchnorm=False, dropout=0.0):
        super().__init__()
        norm = (lambda c: nn.BatchNorm2d(c)) if batchnorm else (lambda c: nn.Identity())
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), norm(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), norm(32), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(32 * (MELS // 4) * (FRAMES // 4), 64),
                                  nn.ReLU(), nn.Dropout(dropout), nn.Linear(64, CLASSES))

    def forward(self, x):
        return self.head(self.features(x))
