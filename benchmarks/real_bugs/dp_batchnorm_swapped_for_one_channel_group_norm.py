"""A first DP-SGD script written by hand: per-sample gradients need a model whose samples
do not meet inside it, so the BatchNorm1d(32) after the first layer is swapped for a
GroupNorm, with the group count the usual recipe picks, gcd(32, channels) - here 32 groups
of ONE channel each. On (batch, features) activations a group of one value is normalised
to exactly 0 for every sample: the layer outputs its bias whatever the digit, everything
after it sees a constant, and the classifier can only learn the class frequencies. The loss
still falls a little (to the entropy of the labels) and training runs to the end.

Reported: "Same uncertainty value for every input" -
https://github.com/meta-pytorch/opacus/issues/567 (the maintainers: the BatchNorm1d(4) was
replaced with GroupNorm(4, 4), which "effectively erases the data, as it applies the
normalization over the array of size 1 for every feature"; fix: "replacing BatchNorms with
GroupNorms with more sensible number of groups, or with other type of normalization").
Here an MLP (64 -> 32 -> norm -> ReLU -> 10) on the 8x8 digits, trained with DP-SGD
(per-sample gradients from one batched forward, autograd.grad with is_grads_batched - as
Opacus' hooks do, the batch is run together; a vmap of one-row forwards is refused by a
GroupNorm of one value per group in training mode - clip C = 1, noise sigma = 1 on the
sum, Poisson batches of 64 on average, SGD lr 0.5, 300 steps; _dp339.py).

Fix: GroupNorm(1, 32) - one group over all 32 channels of a sample (a layer norm), still
per-sample and so still DP-compatible.

Measured (held-out accuracy, 497 digits): 0.103 with the bug, 0.905 fixed;
seeds + 1000: 0.101 vs 0.881.
"""
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._dp339 import (CLIP, EXPECTED_BATCH, NOISE_MULTIPLIER, accuracy,
                                         clip_per_sample, digits_split,
                                         per_sample_gradients_of_batch, poisson_batches)

TITLE = "Same uncertainty value for every input"
LINK = "https://github.com/meta-pytorch/opacus/issues/567"
EXPECTED = ("NORM_OVER_SINGLE_VALUE",)
STEPS = 300
HIDDEN = 32


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = digits_split()
    if fixed:
        norm = nn.GroupNorm(1, HIDDEN)
    else:                           # BUG: gcd(32, 32) = 32 groups of a single channel
        norm = nn.GroupNorm(math.gcd(32, HIDDEN), HIDDEN)
    model = nn.Sequential(nn.Linear(64, HIDDEN), norm, nn.ReLU(), nn.Linear(HIDDEN, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in poisson_batches(len(x), steps, seed=0):
            xb, yb = x[index], y[index]
            loss, grads = per_sample_gradients_of_batch(model, xb, yb)
            clipped = clip_per_sample(grads)
            optimizer.zero_grad()
            for name, param in model.named_parameters():
                noise = torch.normal(0.0, NOISE_MULTIPLIER * CLIP, param.shape)
                param.grad = (clipped[name].sum(0) + noise) / EXPECTED_BATCH
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
