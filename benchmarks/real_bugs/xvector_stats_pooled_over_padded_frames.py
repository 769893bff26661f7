"""An x-vector's statistics pooling (the mean and the standard deviation of every channel
over the frames of an utterance) that ignores the utterances' lengths: the batch of
utterances of different lengths is zero-padded to the longest, and the mean and std are taken
over ALL the frames, the padded ones too. A short utterance's mean is shrunk towards zero by
its share of padding and its std swollen by the jump between its frames and the zeros, so
the same speaker gives a different embedding at every length - the pooled statistics carry
the utterance's length as much as its voice.

Reported: "`StatsPoolLayer` ignores lengths" - https://github.com/NVIDIA-NeMo/Speech/issues/5401
("StatsPoolLayer ignores the `length` argument; statistics are pooled across what should be
padded elements in LID, etc."; fixed by PR 5403 "Pool stats with padding", which masks the
padded frames and divides by each utterance's own length). Here 24 synthetic speakers, each
with its own frame-feature mean (log-energy-like: around 2, not centred) and spread over
12 filterbank-like channels (every frame drawn around the speaker's mean); utterances of 4
to 48 frames, zero-padded to 48 in each batch. A frame-level network (kernel-1 TDNN layers:
Linear + ReLU per frame), stats pooling, a 32-unit embedding and a softmax over the
speakers, Adam. The frame network's outputs at padded positions are its answer to an
all-zero frame, not zero.
Fix: pool only the real frames, mean and std over each utterance's own length.

Measured (held-out verification: 20 speakers never trained on, one enrolment utterance
each, 400 test utterances of random length padded in one batch, each given the speaker
whose enrolment embedding is nearest in cosine): 0.465 with the bug, 0.558 fixed; seeds +
1000: 0.452 vs 0.572. (Closed-set accuracy on the training speakers, 960 held-out
utterances: 0.84 vs 0.88; seeds + 1000: 0.78 vs 0.80.)
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd

TITLE = "`StatsPoolLayer` ignores lengths"
LINK = "https://github.com/NVIDIA-NeMo/Speech/issues/5401"
EXPECTED = ("PADDING_LEAK",)
STEPS = 300
SPEAKERS = 24
CHANNELS = 12
MAX_FRAMES = 48
MIN_FRAMES = 4


def speakers(rng, count=SPEAKERS):
    """Each speaker's frame mean (CHANNELS,) and frame spread (CHANNELS,)."""
    means = 2.0 + rng.normal(0.0, 0.4, (count, CHANNELS))   # log energies: not centred
    spreads = rng.uniform(0.5, 1.5, (count, CHANNELS))
    return means, spreads


def utterances(means, spreads, size, rng, who=None):
    """(frames (B, MAX_FRAMES, CHANNELS) zero-padded after each length, lengths (B,),
    speaker ids (B,))."""
    who = rng.integers(0, len(means), size) if who is None else who
    lengths = rng.integers(MIN_FRAMES, MAX_FRAMES + 1, size)
    x = means[who][:, None, :] + spreads[who][:, None, :] * rng.normal(
        0.0, 1.0, (size, MAX_FRAMES, CHANNELS))
    x = x * (np.arange(MAX_FRAMES)[None, :] < lengths[:, None])[:, :, None]
    return (torch.from_numpy(x.astype(np.float32)), torch.from_numpy(lengths),
            torch.from_numpy(who))


class XVector(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.frames = nn.Sequential(nn.Linear(CHANNELS, 64), nn.ReLU(), nn.Linear(64, 64),
                                    nn.ReLU())
        self.embed = nn.Linear(128, 32)
        self.head = nn.Linear(32, SPEAKERS)

    def pool(self, h, lengths):                       # h: (B, T, C)
        if self.fixed:                                # mean and std over the real frames only
            mask = (torch.arange(h.shape[1])[None, :] < lengths[:, None]).float()[..., None]
            count = mask.sum(1)
            mean = (h * mask).sum(1) / count
            var = (((h - mean[:, None]) ** 2) * mask).sum(1) / count
        else:                                         # BUG: lengths ignored, padding pooled
            mean = h.mean(1)
            var = h.var(1, unbiased=False)
        return torch.cat([mean, var.clamp_min(1e-6).sqrt()], dim=1)

    def embedding(self, x, lengths):
        return self.embed(self.pool(self.frames(x), lengths))

    def forward(self, x, lengths):
        return self.head(F.relu(self.embedding(x, lengths)))


@torch.no_grad()
def verification_accuracy(model, rng, unseen=20, trials=400):
    """Speakers never trained on: one enrolment utterance each, ``trials`` test utterances
    (batched and padded like training), each given the speaker whose enrolment embedding is
    nearest in cosine - the d-vector / x-vector read-out."""
    means, spreads = speakers(rng, unseen)
    model.eval()
    enrol_x, enrol_len, _ = utterances(means, spreads, unseen, rng, who=np.arange(unseen))
    test_x, test_len, test_who = utterances(means, spreads, trials, rng)
    enrol = F.normalize(model.embedding(enrol_x, enrol_len), dim=1)
    test = F.normalize(model.embedding(test_x, test_len), dim=1)
    model.train()
    return round(float(((test @ enrol.T).argmax(1) == test_who).float().mean()), 3)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    means, spreads = speakers(rng)
    model = XVector(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            x, lengths, who = utterances(means, spreads, 64, rng)
            loss = F.cross_entropy(model(x, lengths), who)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    x, lengths, who = utterances(means, spreads, 960, rng)
    model.eval()
    with torch.no_grad():
        mon.speaker_id_accuracy = round(float((model(x, lengths).argmax(1) == who)
                                              .float().mean()), 3)
    mon.held_out_accuracy = verification_accuracy(model, rng)
    return mon
