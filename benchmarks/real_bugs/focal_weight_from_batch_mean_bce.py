"""A sigmoid focal loss for multi-label targets computes ``logpt`` as minus the BCE ALREADY
REDUCED to the batch mean (``reduction=self.reduction``, 'mean' by default), then
``pt = exp(logpt)`` and ``-(1 - pt) ** gamma * logpt``. The focusing factor is one number
for the whole batch instead of one per (sample, label): easy and hard labels are weighed
alike, and as the mean BCE falls the factor (about BCE^2 with gamma 2) shrinks every
gradient with it - the loss is a plain BCE whose step size decays as it learns, and the
rare positives stall below the threshold. Nothing errors; the loss is tiny and falling.

Reported: "I think there is error in focal loss" -
https://github.com/andrijdavid/FocalLoss/issues/2 (the report quotes ``logpt = -F.
binary_cross_entropy_with_logits(input, target, pos_weight=weight,
reduction=self.reduction)``, ``pt = torch.exp(logpt)`` and points out that ``pt`` so made
is not the per-element probability p_t of the label; the class's reduction defaults to
'mean', so ``pt`` is the exponential of the batch-mean loss). Here 2x2 digit collages with
40 labels "digit d in cell c" (benchmarks/real_bugs/_mlc185.py), an MLP tagger, Adam at
3e-3, gamma 2, the class's balance factor 0.25 kept in both runs. Fix: the BCE with
``reduction="none"``, so ``pt`` and the focusing factor are per element, and the mean taken
at the end.

Measured (400 steps, 1,000 held-out collages, a label predicted when its logit is above
0): seed 0, held-out micro-F1 0.53 for the bug against 0.84 for the fixed twin (recall 0.37
against 0.80); seeds shifted by 1000, micro-F1 0.57 against 0.83 (recall 0.41 against
0.79).
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._mlc185 import (collages, digit_at_cell, f1_scores,
                                           index_batches, recall, tagger)

TITLE = "I think there is error in focal loss"
LINK = "https://github.com/andrijdavid/FocalLoss/issues/2"
EXPECTED = ("FOCAL_WEIGHT_FROM_REDUCED_LOSS",)
STEPS = 400
GAMMA, BALANCE = 2.0, 0.25


def focal_loss(logits, y, per_element):
    reduction = "none" if per_element else "mean"     # BUG when "mean": pt of the batch
    logpt = -F.binary_cross_entropy_with_logits(logits, y, reduction=reduction)
    pt = torch.exp(logpt)
    return (BALANCE * -((1 - pt) ** GAMMA) * logpt).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, cells = collages(3000, rng)
    y = digit_at_cell(cells)
    x_test, cells_test = collages(1000, rng, held_out=True)
    y_test = digit_at_cell(cells_test)
    model = tagger(y.shape[1])
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in index_batches(len(x), steps, 64, rng):
            loss = focal_loss(model(x[rows]), y[rows], per_element=fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x_test) > 0
    mon.held_out_micro_f1, mon.held_out_macro_f1 = f1_scores(predicted, y_test)
    mon.held_out_recall = recall(predicted, y_test)
    return mon
