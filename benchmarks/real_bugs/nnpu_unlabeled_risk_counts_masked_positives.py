"""Non-negative positive-unlabeled (nnPU) learning whose unlabeled risk also sums the
masked-out positive rows. The loss masks the scores by multiplying them with the 0/1
"is unlabeled" indicator before the sigmoid loss, ``sigmoid(unlabeled * score)``, but does
not multiply the result by the indicator again: every labelled positive in the batch adds
``sigmoid(0) = 0.5`` to the unlabeled sum. That term has no gradient, so the estimator's
gradient is unchanged - but its VALUE is lifted by ``0.5 * n_positive / n_unlabeled``, and
nnPU's whole point is a test on that value: when the negative-class risk estimate goes
below zero (the flexible model has started to overfit) it steps back up that risk
instead of descending. Lifted, the estimate never looks negative, the correction never
fires, and the run silently becomes unbiased PU (uPU), which overfits exactly as nnPU was
invented to prevent. Nothing errors; the training loss keeps falling.

Reported: "Small bugs in the code" - https://github.com/cimeister/pu-learning/issues/1
(the reporter noted that on lines 30 to 32 of ``loss.py`` ``sigmoid(0) = 0.5`` rather than
0, so for a positive sample ``self.loss_func(-unlabeled*inp)`` contributes 0.5 to a risk
that should be computed on unlabeled data only, and suggested multiplying each masked
loss by its mask again; the author agreed and changed it). Here: digits 5-9 as the positive
class of the 8x8 digits (1,300 training images, half of the positives labelled, the
rest of the data unlabeled with its class prior given; 497 held out with true labels), an
MLP scoring images, sigmoid loss, nnPU with beta 0 and gamma 1, Adam. Fix: the unlabeled
sigmoid losses multiplied by the unlabeled mask.

Measured (5,000 steps, batch 128): held-out accuracy at seed 0, 0.86 for the bug against
0.96 for the fixed twin; seeds shifted by 1000, 0.79 against 0.96 (at 2,000 steps with a
third of the positives labelled the overfitting had only begun: 0.90 against 0.93).
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._noisy_labels import digits_split

TITLE = "Small bugs in the code"
LINK = "https://github.com/cimeister/pu-learning/issues/1"
EXPECTED = ("MASKED_ROWS_IN_RISK_VALUE",)
STEPS = 5000
BATCH = 128
LABELLED_SHARE = 0.5
BETA = 0.0
GAMMA = 1.0


def sigmoid_loss(z):
    return torch.sigmoid(-z)


def pu_loss(score, target, prior, fixed):
    """target: +1 labelled positive, -1 unlabeled."""
    positive, unlabeled = (target == 1).float(), (target == -1).float()
    n_pos, n_unl = positive.sum().clamp_min(1), unlabeled.sum().clamp_min(1)
    y_pos = sigmoid_loss(positive * score) * positive
    y_pos_inv = sigmoid_loss(-positive * score) * positive
    y_unl = sigmoid_loss(-unlabeled * score)   # BUG unless masked again
    if fixed:
        y_unl = y_unl * unlabeled
    positive_risk = prior * y_pos.sum() / n_pos
    negative_risk = -prior * y_pos_inv.sum() / n_pos + y_unl.sum() / n_unl
    if negative_risk.item() < -BETA:
        return -GAMMA * negative_risk
    return positive_risk + negative_risk


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits_split()
    truth = y >= 5
    rng = np.random.default_rng(0)
    labelled = truth & torch.from_numpy(rng.random(len(y)) < LABELLED_SHARE)
    target = torch.where(labelled, 1, -1)
    prior = truth[~labelled].float().mean().item()      # the class prior among unlabeled
    model = mlp(hidden=256, outputs=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, BATCH):
            score = model(x[index]).squeeze(1)
            loss = pu_loss(score, target[index], prior, fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x_held).squeeze(1) > 0
    mon.held_out_accuracy = (predicted == (y_held >= 5)).float().mean().item()
    return mon
