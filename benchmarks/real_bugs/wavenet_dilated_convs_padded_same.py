"""A WaveNet whose dilated kernel-2 convolutions are built with ``padding="same"`` instead
of causal (left-only) padding. "Same" splits the (k - 1) * d padding between the two
ends, the odd one on the right, so each layer's output at t reads its input at t + 1
(dilation 1) or t + d / 2 (dilations 2-16): the stack sees up to 16 samples after the one
it is asked to predict. Training is next-sample cross-entropy
and the loss falls fast and far, because the answer is in view; at generation there is no
future to read (only the zero padding), and the model is worse than one that never cheated.

Reported: "Causal convolution" - https://github.com/peustr/wavenet/issues/1 ("I see the
padding is put to 'same' in the model but shouldn't it be 'causal'? as the wavenet use
causal convolutions"; the author: "'causal' padding would be the way to go").
Here the gated WaveNet of ``_autoregressive`` (dilations 1-16) over quantised periodic
signals (16 levels, period 20, one sample in ten noise), 100 Adam steps of 32 rows of 64.

Fix: causal convolutions - pad (k - 1) * d on the left only (``F.pad(x, (d, 0))``).

Measured (held-out next-sample cross-entropy in nats from the last sample of each window,
as in generation; uniform 2.77): 4.72 with the bug, 1.66 fixed; seeds + 1000: 4.12 vs 1.67.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._autoregressive import (LEVELS, CausalConv, WaveNet,
                                                  periodic_levels, row_batches)
from benchmarks.real_bugs._dilated_causal import next_sample_nll

TITLE = "Causal convolution"
LINK = "https://github.com/peustr/wavenet/issues/1"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 100
LENGTH = 64


def same_padded(channels_in, channels_out, dilation):
    # BUG: "same" pads the even kernel's extra dilation on the right: output t reads t + d
    return nn.Conv1d(channels_in, channels_out, 2, dilation=dilation, padding="same")


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train = periodic_levels(2000, LENGTH, seed=0)
    held_out = periodic_levels(400, LENGTH, seed=1)
    model = WaveNet(LEVELS, levels=LEVELS, conv=CausalConv if fixed else same_padded)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for x in row_batches(train, steps):
            optimizer.zero_grad()
            logits = model(x)                               # (B, LEVELS, T)
            loss = F.cross_entropy(logits[:, :, :-1], x[:, 1:])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_next_sample_nll = next_sample_nll(model, held_out)
    return mon
