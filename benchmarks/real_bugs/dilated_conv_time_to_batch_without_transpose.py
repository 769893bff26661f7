"""A WaveNet whose dilated causal convolutions are computed the time-to-batch way (fold the
time axis into the batch so an ordinary convolution with dilation 1 acts as one with
dilation d) but fold it with a reshape alone: ``(B, C, T) -> (B * d, C, T / d)`` without the
transpose, so each new batch row is a run of T / d CONSECUTIVE samples instead of every
d-th sample. The kernel then joins neighbours, not samples d apart: every layer has
dilation 1 whatever its nominal dilation, the receptive field shrinks from 32 samples to 6,
and the runs' first samples read zeros. Shapes all match and nothing errors; the network
just cannot see far enough back.

Reported: "Bug with _causal_dilated_conv?" - https://github.com/ibab/tensorflow-wavenet/issues/29
(labelled bug: the reporter fed 1..20 through a dilation-4 causal convolution with a [1, 1]
filter and got sums of adjacent values, 3, 5, 7, ..., instead of values 4 apart, 6, 8, 10,
...; the reshaped tensor held consecutive values per row; the maintainer: "the function is
missing transpose operations" and rewrote the causal convolution with tests).
Here a gated WaveNet (dilations 1, 2, 4, 8, 16) over quantised periodic signals whose next
sample is best read from one period (20 samples) back (benchmarks/real_bugs/_autoregressive.py).
Fix: fold with ``reshape(B, C, T / d, d).permute(0, 3, 1, 2)`` (and unfold the same way).

Measured (250 Adam steps, batch 32, 400 held-out signals of 64 samples, next-sample
cross-entropy in nats, uniform guessing 2.77): seed 0 - bug 2.02, fixed 1.49; seeds
shifted by 1000 - bug 2.02, fixed 1.48. (The fixed fold gives exactly a left-padded
dilated convolution's outputs.)
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._autoregressive import (LEVELS, WaveNet, next_level_nll,
                                                  periodic_levels, row_batches)

TITLE = "Bug with _causal_dilated_conv?"
LINK = "https://github.com/ibab/tensorflow-wavenet/issues/29"
EXPECTED = ("RESHAPE_USED_AS_TRANSPOSE",)
STEPS = 250
LENGTH = 64


class TimeToBatchConv(nn.Module):
    """A kernel-2 causal convolution with dilation d done as a dilation-1 convolution on the
    time axis folded into the batch (T padded on the left to a multiple of d)."""
    def __init__(self, channels_in, channels_out, dilation, transpose):
        super().__init__()
        self.d, self.transpose = dilation, transpose
        self.conv = nn.Conv1d(channels_in, channels_out, 2)

    def fold(self, x):                        # (B, C, T) -> (B * d, C, T / d)
        b, c, t = x.shape
        if self.transpose:      # row p holds samples p, p + d, p + 2d, ...
            return x.reshape(b, c, t // self.d, self.d).permute(0, 3, 1, 2) \
                .reshape(b * self.d, c, t // self.d)
        # BUG: no transpose - row p holds the run of samples p * T/d ... (p + 1) * T/d - 1
        return x.reshape(b, c, self.d, t // self.d).permute(0, 2, 1, 3) \
            .reshape(b * self.d, c, t // self.d)

    def unfold(self, y, b):                   # the inverse of fold
        _, c, n = y.shape
        y = y.reshape(b, self.d, c, n)
        if self.transpose:
            return y.permute(0, 2, 3, 1).reshape(b, c, n * self.d)
        return y.permute(0, 2, 1, 3).reshape(b, c, n * self.d)

    def forward(self, x):
        b, _, t = x.shape
        extra = (-t) % self.d
        y = self.conv(F.pad(self.fold(F.pad(x, (extra, 0))), (1, 0)))   # causal, dilation 1
        return self.unfold(y, b)[:, :, extra:]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train = periodic_levels(2000, LENGTH, seed=0)
    held_out = periodic_levels(400, LENGTH, seed=1)
    model = WaveNet(LEVELS, levels=LEVELS,
                    conv=lambda c_in, c_out, d: TimeToBatchConv(c_in, c_out, d, fixed))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for x in row_batches(train, steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x)[:, :, :-1], x[:, 1:])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_next_sample_nll = next_level_nll(model, held_out)
    return mon
