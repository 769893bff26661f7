"""A multi-label (multitask) classifier trained on a label matrix with most entries
missing - each assay measured on only some of the molecules - whose missing entries were
filled with 0 and enter the loss like measured negatives. For every label the model then
learns P(measured and positive), a third of P(positive) when two thirds are missing: the
positives' scores fall below the threshold. The loss falls as it should, nothing errors.

Reported: "label masking for missing data in multitask models" -
https://github.com/deepchem/deepchem/issues/1175 (ToxCast's label matrix is mostly NaN, and
in the loaded dataset "the NaNs have been filled with zeros. Replacing NaNs with zeros
without masking during training and evaluation may drastically overestimate the
predictiveness of the model"; the maintainer's answer: "This is done with the weights
matrix. Any element corresponding to a missing measurement should have a weight of 0").
Here 2x2 digit collages with 10 labels "digit d appears" (benchmarks/real_bugs/_mlc185.py),
each entry of the training label matrix missing with probability 2/3, an MLP tagger,
Adam. Fix: the loss weighted by the measured-entry matrix (weight 0 where missing),
averaged over the measured entries.

Measured (400 steps, 1,000 fully labelled held-out collages, a label predicted when its
logit is above 0): seed 0, held-out micro-F1 0.16 for the bug against 0.75 for the fixed twin
(recall 0.08 against 0.71); seeds shifted by 1000, micro-F1 0.08 against 0.73 (recall
0.04 against 0.64).
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._mlc185 import (collages, digits_present, f1_scores,
                                           index_batches, recall, tagger)

TITLE = "label masking for missing data in multitask models"
LINK = "https://github.com/deepchem/deepchem/issues/1175"
EXPECTED = ("MISSING_LABELS_TRAINED_AS_NEGATIVES",)
STEPS = 400
MISSING = 2 / 3


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, cells = collages(3000, rng)
    y = digits_present(cells)
    measured = torch.from_numpy(rng.random(y.shape) >= MISSING).float()
    y = torch.where(measured > 0, y, torch.full_like(y, float("nan")))   # as loaded
    y_filled = torch.nan_to_num(y, nan=0.0)                               # NaN -> 0
    x_test, cells_test = collages(1000, rng, held_out=True)
    y_test = digits_present(cells_test)
    model = tagger(y.shape[1])
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in index_batches(len(x), steps, 64, rng):
            logits = model(x[rows])
            if fixed:     # weight 0 on the missing entries, mean over the measured ones
                w = measured[rows]
                loss = (F.binary_cross_entropy_with_logits(logits, y_filled[rows],
                                                           reduction="none") * w).sum() \
                    / w.sum().clamp(min=1)
            else:         # BUG: every missing entry trained as a measured negative
                loss = F.binary_cross_entropy_with_logits(logits, y_filled[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x_test) > 0
    mon.held_out_micro_f1, mon.held_out_macro_f1 = f1_scores(predicted, y_test)
    mon.held_out_recall = recall(predicted, y_test)
    return mon
