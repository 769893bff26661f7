"""Gradient accumulation that steps when (idx + 1) % accumulation == 0, with idx the batch
index inside the epoch, over epochs whose batch count the accumulation does not divide:
the last batches of every epoch are backpropagated but never stepped and never zeroed, so
their gradients are carried into the next epoch's first group, which then sums more
micro-batches than the accumulation count (here 3 + 4 = 7 instead of 4), and every epoch
makes one optimizer step fewer than its data allows.

Reported: "Fixing counting number of batches for accumulation through epoch" -
https://github.com/meta-pytorch/torchtune/pull/2745 ("if your gradient accumulation
parameter is set at say 8, but you only have 63 batches to process, it means that you
process the last 7 batches, accumulating statistics and gradients, without re-initializing
them before starting the new epoch ... You end up accumulating 15 batches instead of 8,
messing up not only with the statistics report but also with the optimisation"). Here a
digits MLP fine-tuned on a small set: 7 batches per epoch, 4 accumulated, the loss divided
by 4 as in the report's recipes. Fix: also step (and zero) on the last batch of an epoch.

Why watch misses it: nothing is lost or repeated from the optimizer's side: every step's
.grad holds exactly what the backward passes since the previous step delivered (seven of
them after the first step), so GRADIENTS_ACCUMULATING, which compares the two, has nothing
to see; the only trace is a group of seven micro-batches whose losses were each divided by
four, and a loop that accumulates seven on purpose and divides as it likes looks the same.
(The report's 63 batches with 8 accumulated would show groups of 8 and, once an epoch, 15:
a count of backward passes per optimizer step could name that; it is not recorded.)
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Fixing counting number of batches for accumulation through epoch"
LINK = "https://github.com/meta-pytorch/torchtune/pull/2745"
EXPECTED = ("GRADIENTS_ACCUMULATING",)
STEPS = 420          # batches (60 epochs of 7)
EPOCH = 7            # batches per epoch (a small fine-tuning set)
ACCUMULATE = 4


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    data = batches(x[:EPOCH * 64], y[:EPOCH * 64], steps)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps // EPOCH):
            for idx, (xb, yb) in zip(range(EPOCH), data):
                loss = loss_fn(model(xb), yb) / ACCUMULATE
                loss.backward()
                last = idx == EPOCH - 1
                if (idx + 1) % ACCUMULATE == 0 or (fixed and last):  # BUG: not on the last
                    optimizer.step()
                    optimizer.zero_grad()
                    mon.step(loss * ACCUMULATE)
    return mon
