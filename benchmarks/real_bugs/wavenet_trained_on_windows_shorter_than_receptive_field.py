"""A WaveNet (receptive field 32 samples) trained on pieces of 16 samples, with causal
zero padding and the loss taken at every position of the piece. No scored output ever has
its receptive field filled with signal: half of what every output reads is the padding's
zeros, and the signals repeat every 20 samples, so the past sample that predicts the next
one best - a period back - never falls inside a piece. The loss falls (the short-range
shape of the waveform is learnable) and the model never learns what a longer context gives.

Reported: "padding='SAME'" - https://github.com/ibab/tensorflow-wavenet/issues/186 ("my
receptive field is 5 * 1024 * 2 = 10240 > 10000, which means that no sample gets the whole
input"; fixed in "Change padding to VALID in causal convolutions", #191, which feeds each
piece with a receptive field of history and scores only the outputs that read no padding).
Here the gated WaveNet of ``_autoregressive`` (dilations 1-16) over quantised periodic
signals (16 levels, period 20, one sample in ten noise), 100 Adam steps of 32 pieces.

Fix: cut pieces of (receptive field - 1) + 16 samples and score only the last 16 outputs,
the ones whose receptive field lies inside the piece (as many scored outputs as the bug's).

Measured (held-out cross-entropy in nats of samples 37, 45, 53 and 61 of 64-sample signals,
each from a window ending just before it; uniform 2.77): 2.18 with the bug, 1.68 fixed; seeds + 1000: 2.15 vs 1.74.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._autoregressive import LEVELS, WaveNet, periodic_levels
from benchmarks.real_bugs._dilated_causal import next_sample_nll

TITLE = "padding='SAME'"
LINK = "https://github.com/ibab/tensorflow-wavenet/issues/186"
EXPECTED = ("PADDING_LEAK",)
STEPS = 100
LENGTH = 64
RECEPTIVE_FIELD = 32          # 1 + (1 + 2 + 4 + 8 + 16) for kernel 2
SCORED = 16                   # outputs scored per piece (the report's sample_size)


def pieces(rows, steps, size, batch_size=32, seed=0):
    """``steps`` batches of random ``size``-sample pieces cut from random rows."""
    rng = np.random.default_rng(seed + 7)
    for _ in range(steps):
        r = rng.integers(0, len(rows), batch_size)
        s = rng.integers(0, rows.shape[1] - size + 1, batch_size)
        yield torch.stack([rows[i, j:j + size] for i, j in zip(r.tolist(), s.tolist())])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train = periodic_levels(2000, LENGTH, seed=0)
    held_out = periodic_levels(400, LENGTH, seed=1)
    model = WaveNet(LEVELS, levels=LEVELS)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    history = RECEPTIVE_FIELD - 1 if fixed else 0   # BUG: no history before the scored part
    with nd.watch(model, optimizer, **watch) as mon:
        for x in pieces(train, steps, history + SCORED + 1):
            optimizer.zero_grad()
            logits = model(x[:, :-1])                       # (B, LEVELS, history + SCORED)
            loss = F.cross_entropy(logits[:, :, history:], x[:, history + 1:])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_next_sample_nll = next_sample_nll(model, held_out)
    return mon
