"""A multi-label tagger trained with ``nn.MultiLabelSoftMarginLoss``, whose per-sample loss
is the MEAN of the labels' binary cross-entropies, not their sum: with 40 labels every
gradient is 40 times smaller than the multi-label likelihood's, so under plain SGD the
learning rate chosen is in effect divided by 40. The loss falls slowly, nothing errors, and
the tagger stays at the labels' base rates: no label reaches the threshold.

Reported: "bug of multilable loss in v0.4" - https://github.com/pytorch/pytorch/issues/9301
(the reporter showed ``F.multilabel_soft_margin_loss`` equal to the mean over batch AND
classes, 0.9291 on their example, where the multi-label loss they expected - the binary
losses of the classes summed, then averaged over the batch - gave 4.6454: "should use
sum (not mean) for binary losses of different classes"; the loss divided by the number of
classes is the default to this day). Here 2x2 digit collages with 40 labels "digit d in
cell c" (benchmarks/real_bugs/_mlc185.py), an MLP tagger, SGD at 0.03 with momentum 0.9.
Fix: the reporter's loss, ``binary_cross_entropy_with_logits(..., reduction="none")
.sum(1).mean()``.

Measured (300 steps, 1,000 held-out collages, a label predicted when its logit is above
0): seed 0, held-out micro-F1 0.00 for the bug (no label predicted) against 0.84 for the
fixed twin; seeds shifted by 1000, 0.00 against 0.83.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._mlc185 import (collages, digit_at_cell, f1_scores,
                                           index_batches, recall, tagger)

TITLE = "bug of multilable loss in v0.4"
LINK = "https://github.com/pytorch/pytorch/issues/9301"
EXPECTED = ("LOSS_MEAN_OVER_CLASSES", "LR_TOO_LOW")
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, cells = collages(3000, rng)
    y = digit_at_cell(cells)
    x_test, cells_test = collages(1000, rng, held_out=True)
    y_test = digit_at_cell(cells_test)
    model = tagger(y.shape[1])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.03, momentum=0.9)
    criterion = torch.nn.MultiLabelSoftMarginLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in index_batches(len(x), steps, 64, rng):
            logits = model(x[rows])
            if fixed:       # the labels' losses summed, averaged over the batch
                loss = F.binary_cross_entropy_with_logits(logits, y[rows],
                                                          reduction="none").sum(1).mean()
            else:           # BUG: averaged over the 40 labels too
                loss = criterion(logits, y[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x_test) > 0
    mon.held_out_micro_f1, mon.held_out_macro_f1 = f1_scores(predicted, y_test)
    mon.held_out_recall = recall(predicted, y_test)
    return mon
