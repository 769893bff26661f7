"""A training set balanced by oversampling the rare class - and then the model is fitted on
the ORIGINAL rows. The resampled arrays are built, printed, checked for balance, and never
used: the fit call still names the imbalanced ones. Everything runs, the balance printout
looks right, and the model learns what an unbalanced fit learns: at 1 positive in 100 it
rarely predicts the rare class.

Reported: "Issue with Oversampling in each cross-validation loop" -
https://github.com/lumiata/tech_blog/issues/3 (a blog's oversampling-in-each-fold example
calls ``SMOTE().fit_sample(train, target_train)`` into ``X_train_res, y_train_res``, prints
their shapes, and then fits ``rf.fit(train, target_train)``, "training your model on the
imbalanced data and not on the oversampled data as you claim"; the authors agreed it was a
bug and fixed the fit to take the resampled arrays). Here: one digit (8) against the nine
others, 12 positive rows among 1,152 (benchmarks/real_bugs/_imb186.py); the positives are
oversampled by repetition to the negatives' count; an MLP with one logit, BCE, Adam, batches
of 64 drawn from the training rows. Fix: the batches drawn from the oversampled rows.

Measured (400 steps; on 535 held-out digits, 52 of them positives, at p > 0.5): seed 0,
recall of the positives 0.00 for the bug against 0.71 for the fixed twin (balanced
accuracy 0.50 against 0.84); seeds shifted by 1000, recall 0.00 against 0.62 (balanced
accuracy 0.50 against 0.80).
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._imb186 import binary_scores, rare_binary

TITLE = "Issue with Oversampling in each cross-validation loop"
LINK = "https://github.com/lumiata/tech_blog/issues/3"
EXPECTED = ("RARE_POSITIVES_NEVER_PREDICTED",)
STEPS = 400
BATCH = 64


def oversample(x, y):
    """The positives repeated (cycled) up to the negatives' count, with every negative."""
    pos, neg = np.flatnonzero(y.numpy() == 1), np.flatnonzero(y.numpy() == 0)
    rows = np.concatenate([neg, np.resize(pos, len(neg))])
    return x[rows], y[rows]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = rare_binary(seed=0)
    x_res, y_res = oversample(x, y)           # balanced: as many positives as negatives
    if fixed:
        x_fit, y_fit = x_res, y_res
    else:
        x_fit, y_fit = x, y                   # BUG: the resampled arrays never used
    model = mlp(outputs=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x_fit), steps, BATCH, seed=0):
            loss = F.binary_cross_entropy_with_logits(model(x_fit[index]).squeeze(1),
                                                      y_fit[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    recall, f1, balanced = binary_scores(model, x_test, y_test)
    mon.held_out_recall, mon.held_out_f1, mon.held_out_balanced_accuracy = recall, f1, balanced
    return mon
