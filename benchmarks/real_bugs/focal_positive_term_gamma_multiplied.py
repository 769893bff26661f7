"""A hand-written sigmoid focal loss for multi-label targets whose positive term weighs
each positive by ``(1 - p) * gamma`` - the focusing exponent MULTIPLIED in, a ``*`` where
``**`` was meant - while the negative term has ``p ** gamma`` right. With gamma 2 a
positive predicted at p = 0.5 keeps weight 1.0 where the focal loss gives it 0.25, and one
at 0.9 keeps 0.2 where it should have 0.01: the positives outweigh the negatives by far
more than intended, and the tagger calls labels present that are not. The loss falls,
the recall is high, nothing errors.

Reported: "For positive label gamma is being multiplied instead of exponent" -
https://github.com/fudannlp16/focal-loss/issues/2 (the sigmoid focal loss is written
``-labels*(1-alpha)*((1-y_pred)*gamma)*tf.log(y_pred) - (1-labels)*alpha*(y_pred**gamma)*
tf.log(1-y_pred)``; the report gives the fix ``((1-y_pred)**gamma)``; a later issue of the
same repository, #8, found the same line). Here 2x2 digit collages with 10 labels "digit d
appears" (benchmarks/real_bugs/_mlc185.py), an MLP tagger, Adam at 3e-3, gamma 2 and the
repository's alpha 0.25 kept in both runs. Fix: ``(1 - p) ** gamma`` in the positive term.

Measured (400 steps, 1,000 held-out collages, a label predicted when its logit is above
0): seed 0, held-out micro-F1 0.73 for the bug against 0.79 for the fixed twin (precision
0.60 against 0.73, recall 0.93 against 0.86); seeds shifted by 1000, micro-F1 0.73 against
0.77 (precision 0.61 against 0.72).
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._mlc185 import (collages, digits_present, f1_scores,
                                           index_batches, precision, recall, tagger)

TITLE = "For positive label gamma is being multiplied instead of exponent"
LINK = "https://github.com/fudannlp16/focal-loss/issues/2"
EXPECTED = ("FOCAL_EXPONENT_MULTIPLIED",)
STEPS = 400
ALPHA, GAMMA = 0.25, 2.0


def sigmoid_focal(logits, y, fixed):
    p = torch.sigmoid(logits).clamp(1e-7, 1 - 1e-7)
    # BUG when not fixed: (1 - p) * gamma, the exponent multiplied in
    modulation = (1 - p) ** GAMMA if fixed else (1 - p) * GAMMA
    positive = -y * (1 - ALPHA) * modulation * torch.log(p)
    negative = -(1 - y) * ALPHA * p ** GAMMA * torch.log(1 - p)
    return (positive + negative).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, cells = collages(3000, rng)
    y = digits_present(cells)
    x_test, cells_test = collages(1000, rng, held_out=True)
    y_test = digits_present(cells_test)
    model = tagger(y.shape[1])
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in index_batches(len(x), steps, 64, rng):
            loss = sigmoid_focal(model(x[rows]), y[rows], fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x_test) > 0
    mon.held_out_micro_f1, mon.held_out_macro_f1 = f1_scores(predicted, y_test)
    mon.held_out_recall = recall(predicted, y_test)
    mon.held_out_precision = precision(predicted, y_test)
    return mon
