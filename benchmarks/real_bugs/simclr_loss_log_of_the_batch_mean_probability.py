"""A SimCLR loss that takes the log AFTER averaging: -log(mean_i p_i), where p_i is the
softmax probability of view i's positive among the batch, instead of the cross-entropy
mean_i(-log p_i). The gradient each view gets is weighted by p_i / sum_j p_j: the views
the encoder already matches well dominate every step, while the hard ones - whose p_i is
tiny - get almost no gradient, so the loss looks fine while most of the batch is
ignored.

Reported: "problem in the simclr loss" -
https://github.com/mpatacchiola/self-supervised-relational-reasoning/issues/3 ("the
return value should be torch.mean(-torch.log(x)) instead of -torch.log(x.mean())"; the
maintainer found "little or no difference" on CIFAR-10/100 with a ResNet-32 and kept
both forms). Here a digits MLP encoder trained with that loss on two random views of
each digit (shift, pixel mask, noise), Adam; a nearest-centroid probe reads the
encoder's normalised features on augmented held-out digits.
Fix: torch.mean(-torch.log(x)).

Measured (300 steps, batch 128): held-out probe accuracy 0.527 for the bug against 0.632
for the fixed twin at seed 0; seeds + 1000: 0.555 against 0.639 (smaller than the
gap the other losses of this batch open, but at both seeds).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._ssl179 import digits, probe_accuracy, two_view_batches
from benchmarks.real_bugs._ssl_digits import encoder

TITLE = "problem in the simclr loss"
LINK = "https://github.com/mpatacchiola/self-supervised-relational-reasoning/issues/3"
EXPECTED = ("LOSS_TERMS_REDUCED_DIFFERENTLY",)
STEPS = 300
TEMPERATURE = 0.2


def return_loss_fn(z1, z2, fixed):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    n = len(z1)
    logits = (z @ z.T / TEMPERATURE).masked_fill(torch.eye(2 * n, dtype=torch.bool),
                                                 float("-inf"))
    partner = (torch.arange(2 * n) + n) % (2 * n)
    x = torch.softmax(logits, dim=1)[torch.arange(2 * n), partner]
    if fixed:
        return torch.mean(-torch.log(x))
    return -torch.log(x.mean())        # BUG: log of the batch-mean probability


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = encoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for v1, v2 in two_view_batches(x, steps):
            loss = return_loss_fn(model(v1), model(v2), fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_probe_accuracy = probe_accuracy(model, x, y)
    return mon
