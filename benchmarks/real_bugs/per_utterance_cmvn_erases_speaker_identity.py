"""Speaker identification on MFCC-like frames that were mean-and-variance normalised per
utterance (CMVN over each utterance's own frames). A speaker shows in the features mostly as
a fixed spectral envelope - an offset of every band that lasts the whole utterance - and
subtracting each utterance's own mean per band removes exactly that offset. What is left is
the phonetic content, which every speaker shares, so the classifier trains without error
and without progress: the loss sits near log(speakers) and held-out accuracy is chance.
Nothing crashes, the features look well scaled, and the same normalisation is the right
choice for speech recognition, which is why it is on by default.

Reported: "baseline feature performance issue" - https://github.com/s3prl/s3prl/issues/36
(speaker classification on MFCC features gave 0.03-0.05 accuracy through the toolkit, 0.88
once the features were extracted with `--apply_cmvn=False`; the maintainer: the per-utterance
CMVN removes global information, i.e. the speaker identity). Fix: no per-utterance CMVN for
an utterance-level speaker task (keep the features as extracted).

Here 8 speakers, each a fixed 16-band envelope; an utterance is 24 frames of phones drawn
from 6 shared phone templates plus noise on top of its speaker's envelope; a 1-d CNN over
time with mean pooling and a linear head, Adam. The bug normalises each utterance over its
own frames; the fixed twin feeds the features as extracted.
**Measured** (this script, 300 steps): held-out speaker accuracy 0.13 for the bug against
1.00 for the fixed twin at seed 0, and 0.13 against 1.00 with every seed shifted by 1000
(chance is 0.125).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd

TITLE = "baseline feature performance issue"
LINK = "https://github.com/s3prl/s3prl/issues/36"
EXPECTED = ("NORMALISATION_ERASES_CLASS_SIGNAL",)
STEPS = 300
SPEAKERS, PHONES, BANDS, FRAMES, BATCH = 8, 6, 16, 24, 32


def utterances(n, envelopes, phones, rng, fixed):
    """``n`` utterances (n, BANDS, FRAMES) and their speakers (n,)."""
    speakers = rng.integers(0, SPEAKERS, n)
    sequence = rng.integers(0, PHONES, (n, FRAMES))
    x = (envelopes[speakers][:, :, None] + phones[sequence].transpose(0, 2, 1)
         + 0.3 * rng.standard_normal((n, BANDS, FRAMES)))
    if not fixed:   # BUG: CMVN over each utterance's own frames removes the speaker's envelope
        x = (x - x.mean(axis=2, keepdims=True)) / (x.std(axis=2, keepdims=True) + 1e-5)
    return (torch.from_numpy(x.astype(np.float32)),
            torch.from_numpy(speakers.astype(np.int64)))


class SpeakerNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.frames = nn.Sequential(nn.Conv1d(BANDS, 32, 3, padding=1), nn.ReLU(),
                                    nn.Conv1d(32, 32, 3, padding=1), nn.ReLU())
        self.head = nn.Linear(32, SPEAKERS)

    def forward(self, x):
        return self.head(self.frames(x).mean(dim=2))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    envelopes = rng.standard_normal((SPEAKERS, BANDS))
    phones = 1.5 * rng.standard_normal((PHONES, BANDS))
    x, y = utterances(4000, envelopes, phones, rng, fixed)
    test_x, test_y = utterances(1000, envelopes, phones, rng, fixed)
    model = SpeakerNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.from_numpy(rng.integers(0, len(x), BATCH))
            loss = nn.functional.cross_entropy(model(x[rows]), y[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_accuracy = (model(test_x).argmax(-1) == test_y).float().mean().item()
    return mon
