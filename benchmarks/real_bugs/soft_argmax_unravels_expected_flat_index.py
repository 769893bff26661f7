"""Integral (soft-argmax) keypoint regression whose soft-argmax takes the expectation of the
FLATTENED pixel index, then unravels that one number into a column (index % W) and a row
(floor(index / W)). The expected flat index mixes the rows into the columns: a heatmap
with any spread over rows gives a fractional row count whose remainder turns into a
column, and the row comes out of a floor, which has no gradient. The y half of the
coordinate loss never reaches the network: the rows move only as a side effect of the
modulo's pull on the index for x. The loss falls and settles; nothing errors.

Reported: "Correctness?" - https://github.com/Fdevmsy/PyTorch-Soft-Argmax/issues/2 (the
implementation "seems to first unroll the volume into a single dimension, then applies
one-dimensional soft-argmax and unravels the resulting single index to three indices
corresponding to the volume's axes. However, this is not how soft-argmax should operate in
multiple dimensions": each coordinate is the expectation over its own axis of the
distribution summed over the other axes). The reported code is 3-D; here the same
unravelling in 2-D on a small fully convolutional network's per-joint maps, trained with
an L1 loss on normalised coordinates of 20x20 synthetic upper bodies.
Fix: x = sum_j p(column j) * j and y = sum_i p(row i) * i, from the softmax summed over
the other axis.

Measured (300 Adam steps, batch 32, 2,000 training figures, 500 held out, seed 0): held-out
mean keypoint error 2.50 pixels for the bug (its mean |y error| 2.20), 0.23 pixels for the
fixed twin (0.15).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._keypoints import HeatmapNet, figures, index_batches, to_unit

TITLE = "Correctness?"
LINK = "https://github.com/Fdevmsy/PyTorch-Soft-Argmax/issues/2"
EXPECTED = ("SOFT_ARGMAX_UNRAVELS_FLAT_INDEX", "LOSS_TERM_WITHOUT_GRADIENT")
STEPS = 300
BATCH = 32
TRAIN, HELD_OUT = 2000, 500
LR = 3e-3


def soft_argmax(logits, fixed):
    """(N, K, H, W) maps -> (N, K, 2) pixel (x, y)."""
    n, k, h, w = logits.shape
    p = F.softmax(logits.flatten(2), dim=-1)
    if fixed:
        p = p.view(n, k, h, w)
        x = (p.sum(2) * torch.arange(w, dtype=p.dtype)).sum(-1)
        y = (p.sum(3) * torch.arange(h, dtype=p.dtype)).sum(-1)
        return torch.stack([x, y], -1)
    index = (p * torch.arange(h * w, dtype=p.dtype)).sum(-1)     # BUG: one expected index,
    x = index % w                                                # then unravelled
    y = (index / w).floor() % h
    return torch.stack([x, y], -1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, points = figures(TRAIN + HELD_OUT, seed=0)
    model = HeatmapNet(5)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, BATCH, seed=0):
            optimizer.zero_grad()
            predicted = to_unit(soft_argmax(model(images[index]), fixed))
            loss = F.l1_loss(predicted, to_unit(points[index]))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        found = soft_argmax(model(images[TRAIN:]), fixed)
    error = (found - points[TRAIN:]).abs()
    mon.held_out_error = (found - points[TRAIN:]).norm(dim=-1).mean().item()
    mon.held_out_y_error = error[..., 1].mean().item()
    return mon
