"""A speech feature extractor converts a POWER mel spectrogram to decibels with
``librosa.amplitude_to_db`` (20 log10, for magnitudes) instead of ``power_to_db`` (10
log10). Every level comes out doubled, and the ``top_db=80`` floor, meant as 80 dB below
the loudest bin, now sits 40 dB below it in power: everything quieter is flattened onto the
floor. Loud vowels survive; quiet consonants and the noise between words become one
constant value. Nothing fails; the cues that were quieter than 40 dB are gone.

Reported: "Audio의 Feature 뽑는 것에 대하여" (on extracting audio features) -
https://github.com/sooftware/kospeech/issues/125 ("in kospeech/data/audio/feature.py, after
extracting the mel-spectrogram you used amplitude_to_db ... shouldn't this be power_to_db?
librosa's examples also use power_to_db"; the maintainer: "Thank you for pointing out the
error. I fixed it and applied it"). Here 8 mel bands x 16 frames: a loud vowel in the low
bands, and - what tells the four words apart - a quiet fricative (45 dB below the vowel) in
one of the four high bands; room noise at -70 dB. Measured (this script, seed 0, 200
steps): the bug run's last 20 losses average 1.39 (chance: ln 4 = 1.39; on a fresh batch it
predicts one word: accuracy 0.16), the fixed twin's 0.001 (1.00).
Fix: ``librosa.power_to_db(mel, ref=np.max)`` for a power spectrogram.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = "Audio의 Feature 뽑는 것에 대하여"
LINK = "https://github.com/sooftware/kospeech/issues/125"
EXPECTED = ("INPUTS_CLIPPED_AT_FLOOR",)
STEPS = 200
BANDS, FRAMES, WORDS = 8, 16, 4
TOP_DB = 80.0


def to_db(power, amplitude):
    """librosa's conversions with ref=np.max and top_db=80, one spectrogram per row."""
    factor = 20.0 if amplitude else 10.0
    db = factor * np.log10(np.maximum(power, 1e-10))
    db = db - db.max(axis=(1, 2), keepdims=True)
    return np.maximum(db, -TOP_DB)


def utterances(steps, batch_size=64, seed=0, fixed=False):
    """``steps`` batches of (scaled log-mel (B, 1, BANDS, FRAMES), word ids (B,))."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        word = rng.integers(0, WORDS, batch_size)
        power = 1e-7 * rng.uniform(0.5, 2.0, (batch_size, BANDS, FRAMES))       # room noise
        for row in range(batch_size):
            start = rng.integers(0, FRAMES - 8)
            power[row, :4, start:start + 6] += rng.uniform(0.3, 1.0, (4, 1))    # the vowel
            at = rng.integers(0, FRAMES - 3)
            power[row, 4 + word[row], at:at + 3] += 10 ** -4.5                  # fricative
        if fixed:
            db = to_db(power, amplitude=False)
        else:
            db = to_db(power, amplitude=True)       # BUG: a power spectrogram as magnitudes
        x = db / TOP_DB + 1.0                       # [0, 1]
        yield torch.from_numpy(x[:, None].astype(np.float32)), torch.from_numpy(word)


def classifier():
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
                         nn.AdaptiveMaxPool2d((BANDS, 1)), nn.Flatten(),
                         nn.Linear(16 * BANDS, WORDS))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = classifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(),
                         utterances(steps, fixed=fixed), **watch)
