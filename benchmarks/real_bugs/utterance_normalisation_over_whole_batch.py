"""Waveforms meant to be normalised one utterance at a time (zero mean, unit variance per
sentence, to take out each recording's gain) are normalised over the WHOLE batch instead:
``F.layer_norm(wav, wav.shape)`` takes its ``normalized_shape`` from the full tensor, batch
axis included, so one mean and one standard deviation are computed over every sample of
every utterance in the batch. Each utterance keeps its own gain, divided by the batch's
overall level: a quiet recording batched with loud ones arrives close to silence, and what
the model sees of a voice depends on which other utterances share its batch.

Reported: "Fix sentence-wise normalization in wav2vec2.0 HuggingFace recipe" - https://github.com/speechbrain/speechbrain/issues/1247
("the current implementation normalizes the whole batch, instead of each sentence
separately: ``wav = F.layer_norm(wav, wav.shape)`` ... This happens because ``wav.shape``
is used in the ``expected_shape`` argument, thus taking the batch size dimension into
account"; proposed fix ``F.layer_norm(wav, wav.shape[1:])``). The report is about the
wav2vec2 wrapper's input normalisation; here the same line sits in front of a small
speaker classifier. 16 synthetic speakers, each a voice of three harmonics-like tones at
its own frequencies, random phases, plus noise; every utterance (256 samples) recorded at
a random gain spread over three orders of magnitude. A strided Conv1d front end, ReLU,
mean over time, a linear head, Adam.
Fix: normalise each utterance over its own samples, ``F.layer_norm(wav, wav.shape[1:])``.

Measured (speaker accuracy on 1,024 held-out utterances, read in batches of 64 like
training): 0.853 with the bug, 1.000 fixed; seeds + 1000: 0.802 vs 1.000.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd

TITLE = "Fix sentence-wise normalization in wav2vec2.0 HuggingFace recipe"
LINK = "https://github.com/speechbrain/speechbrain/issues/1247"
EXPECTED = ("BATCH_MIXING",)
STEPS = 300
SPEAKERS = 16
SAMPLES = 256


def voices(rng):
    """Each speaker's three tone frequencies (cycles per sample) and their weights."""
    freqs = rng.uniform(0.02, 0.3, (SPEAKERS, 3))
    weights = rng.uniform(0.5, 1.0, (SPEAKERS, 3))
    return freqs, weights


def utterances(freqs, weights, size, rng):
    """(waveforms (B, SAMPLES), speaker ids (B,)), each at its own recording gain."""
    who = rng.integers(0, SPEAKERS, size)
    t = np.arange(SAMPLES)[None, None, :]
    phase = rng.uniform(0, 2 * np.pi, (size, 3, 1))
    wav = (weights[who][..., None] * np.sin(2 * np.pi * freqs[who][..., None] * t + phase)
           ).sum(1) + 0.5 * rng.normal(0.0, 1.0, (size, SAMPLES))
    gain = 10.0 ** rng.uniform(-1.5, 1.5, (size, 1))
    return torch.from_numpy((gain * wav).astype(np.float32)), torch.from_numpy(who)


class SpeakerNet(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.front = nn.Sequential(nn.Conv1d(1, 32, 16, stride=4), nn.ReLU(),
                                   nn.Conv1d(32, 32, 5, stride=2), nn.ReLU())
        self.head = nn.Linear(32, SPEAKERS)

    def forward(self, wav):                              # (B, SAMPLES)
        if self.fixed:
            wav = F.layer_norm(wav, wav.shape[1:])       # each utterance on its own
        else:
            wav = F.layer_norm(wav, wav.shape)           # BUG: one mean/std for the batch
        return self.head(self.front(wav[:, None]).mean(-1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    freqs, weights = voices(rng)
    model = SpeakerNet(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            wav, who = utterances(freqs, weights, 64, rng)
            loss = F.cross_entropy(model(wav), who)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    correct = 0
    with torch.no_grad():
        for _ in range(16):
            wav, who = utterances(freqs, weights, 64, rng)
            correct += int((model(wav).argmax(1) == who).sum())
    mon.held_out_accuracy = round(correct / 1024, 3)
    return mon
