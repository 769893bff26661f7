"""A regression model trained on float targets, but its validation loop converts the targets
with ``target.long()`` (a line copied from a classification script): every validation score
is truncated towards zero before the loss, so the validation loss measures the distance to
a staircase under the true scores. It sits far above the training loss and barely moves
while the model keeps getting better - it reads as overfitting, and a best-checkpoint or
early-stopping rule driven by it picks the wrong model.

Reported: "Question for eval_BreastPathQ_SSL.py line 123." -
https://github.com/srinidhiPY/SSL_CR_Histo/issues/5 ("`target = target.long()` It could
translate the float tensor into int64, thus the val_loss could be wrong. Is this a bug
here?"; the author: "it's an unintentional bug over here. It should have been the
target.float() (as in Line 55) instead of target.long() data type"). There the targets are
tumour cellularity scores in [0, 1], so every one but 1.0 becomes 0. Here a continuous
score of each 8x8 digit (its amount of ink, 10 x its mean grey level, about 1.5 to 4.5) is
regressed by an MLP with MSE, with a validation pass every 10 steps. Fix:
``target.float()`` in the validation loop too.

Measured (300 steps, 297 validation digits): the bug's last validation loss is 0.31 while
the model's true validation error is 0.0011 (the fixed twin reports 0.0011); the training
loss is the same in both (0.001 over the last 20 steps).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Question for eval_BreastPathQ_SSL.py line 123."
LINK = "https://github.com/srinidhiPY/SSL_CR_Histo/issues/5"
EXPECTED = ("VALIDATION_TARGETS_TRUNCATED",)
STEPS = 300
HELD_OUT = 297       # the last rows of the digits: the validation set
VAL_EVERY = 10


def ink_scores():
    x, _ = classification()
    return x, 10 * x.mean(1)


def validation_loss(model, x, target, fixed):
    target = target.float() if fixed else target.long()     # BUG: scores truncated to ints
    model.eval()
    with torch.no_grad():
        loss = nn.functional.mse_loss(model(x).squeeze(1), target)
    model.train()
    return loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = ink_scores()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x[:-HELD_OUT], y[:-HELD_OUT], steps)):
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(xb).squeeze(1), yb)
            loss.backward()
            optimizer.step()
            val = None
            if step % VAL_EVERY == VAL_EVERY - 1:
                val = validation_loss(model, x[-HELD_OUT:], y[-HELD_OUT:], fixed)
            mon.step(loss, val_loss=val)
    mon.extra = {"last_val_loss": round(float(validation_loss(
        model, x[-HELD_OUT:], y[-HELD_OUT:], fixed)), 4),
        "true_val_loss": round(float(validation_loss(
            model, x[-HELD_OUT:], y[-HELD_OUT:], True)), 4)}
    return mon
