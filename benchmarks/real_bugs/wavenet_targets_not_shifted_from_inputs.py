"""A WaveNet trained with the waveform as both its input and its target, with no time
shift between them: the output at t is scored against the sample at t, which the causal
convolution at t has just read. The network learns to copy its newest input, the training
loss drops towards zero, and at generation - where the output at t must name the sample
at t + 1 - it confidently repeats the last sample.

Reported: "There may be a few bugs in this code." - https://github.com/golbin/WaveNet/issues/12
("there should be a time shift between the input audio and the target audio, But not so
in the code", of the data loader's input and target pair).
Here the gated WaveNet of ``_autoregressive`` (dilations 1-16) over quantised periodic
signals (16 levels, period 20, one sample in ten noise), 100 Adam steps of 32 rows of 64.

Fix: shift by one sample - the outputs ``logits[:, :, :-1]`` against ``x[:, 1:]``.

Measured (held-out next-sample cross-entropy in nats from the last sample of each window,
as in generation; uniform 2.77): 14.5 with the bug, 1.66 fixed; seeds + 1000: 14.3 vs 1.67.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._autoregressive import (LEVELS, WaveNet, periodic_levels,
                                                  row_batches)
from benchmarks.real_bugs._dilated_causal import next_sample_nll

TITLE = "There may be a few bugs in this code."
LINK = "https://github.com/golbin/WaveNet/issues/12"
EXPECTED = ("TARGETS_IN_INPUTS", "LABELS_MISALIGNED")
STEPS = 100
LENGTH = 64


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train = periodic_levels(2000, LENGTH, seed=0)
    held_out = periodic_levels(400, LENGTH, seed=1)
    model = WaveNet(LEVELS, levels=LEVELS)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for x in row_batches(train, steps):
            if fixed:
                inputs, targets = x[:, :-1], x[:, 1:]
            else:
                inputs, targets = x, x          # BUG: no time shift between input and target
            optimizer.zero_grad()
            loss = F.cross_entropy(model(inputs), targets)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_next_sample_nll = next_sample_nll(model, held_out)
    return mon
