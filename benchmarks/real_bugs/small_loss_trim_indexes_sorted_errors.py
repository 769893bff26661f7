"""A trimmed ("ranking") loss meant to train only on the relatively small errors, so that
a share of grossly wrong targets is left out, that picks its errors with the sort's
indices from the already SORTED tensor: ``error, indices = torch.sort(error)`` and then
``torch.index_select(error, 0, indices[:k])``. Those indices are positions in the
unsorted batch, so they pick an arbitrary 70% of the sorted errors, the largest
included: the corrupted targets keep pulling the fit and the trimming protects nothing.
The loss still falls and the model still fits the clean rows roughly, only shifted
toward the corrupted values.

Reported: "Incorrect Selection of Errors in Ranking Loss Computation" -
https://github.com/xxlong0/Wonder3D/issues/163 ("why selects the errors from the already
sorted error tensor ?" - the fix proposed there: crop the sorted tensor,
``error[:int(penalize_ratio * len(error))]``). Here the same loss as the small-loss
selection of a noisy-label regression: an MLP (64 -> 64 -> 1) predicts the standardised
digit value of the 8x8 digits (1,300 training images, 30% of their targets corrupted by
+3 standard deviations, 497 clean held-out images), Adam (lr 1e-3), batches of 64, the
loss the mean of the smallest 70% of the squared errors in each batch.
Fix: keep the first k of the sorted errors, ``error[:k]``.

Measured (held-out mean squared error on clean targets, lower is better, 300 steps):
1.064 with the bug, 0.583 fixed; seeds + 1000: 1.281 vs 0.513.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._noisy_labels import digits_split

TITLE = "Incorrect Selection of Errors in Ranking Loss Computation"
LINK = "https://github.com/xxlong0/Wonder3D/issues/163"
EXPECTED = ("SMALL_LOSS_SELECTION_NOT_SMALLEST",)
STEPS = 300
NOISE = 0.3
OFFSET = 3.0
BATCH = 64
PENALIZE_RATIO = 0.7


def ranking_loss(error, fixed):
    error, indices = torch.sort(error)
    k = int(PENALIZE_RATIO * indices.shape[0])
    if fixed:
        kept = error[:k]
    else:                                           # BUG: batch positions into sorted errors
        kept = torch.index_select(error, 0, indices[:k])
    return kept.mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, digit, x_held, digit_held = digits_split()
    mean, std = digit.float().mean(), digit.float().std()
    y, y_held = (digit.float() - mean) / std, (digit_held.float() - mean) / std
    corrupt = torch.from_numpy(np.random.default_rng(1).random(len(y)) < NOISE)
    y_noisy = torch.where(corrupt, y + OFFSET, y)
    model = mlp(outputs=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, BATCH):
            error = (model(x[index]).squeeze(1) - y_noisy[index]) ** 2
            loss = ranking_loss(error, fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_mse = ((model(x_held).squeeze(1) - y_held) ** 2).mean().item()
    return mon
