"""Label smoothing for a binary cross-entropy written as ``target.add_(eps).div_(2)``:
that maps a 0 label to eps/2 but a 1 label to (1 + eps)/2, so with eps = 0.1 every
positive is trained towards a probability of 0.55 instead of 0.95. The loss falls
normally (to the entropy of those soft targets), the outputs rank the two classes well,
and nothing errors; but the classifier learns to put its positives just above one half,
so at the usual 0.5 threshold a large share of held-out positives falls below it.

Reported: "Possible Bug in LabelSmoothing for Binary Cross Entropy" -
https://github.com/eladhoffer/utils.pytorch/issues/13 (the library's
``binary_cross_entropy`` smoothed its targets with ``target.add_(smooth_eps).div_(2.)``;
the reporter's fix: ``target * (1 - smooth_eps) + smooth_eps / 2``, which keeps the
smoothed targets symmetric, eps/2 and 1 - eps/2). Here a one-hidden-layer MLP telling
digits 0-4 from 5-9 on the 8x8 digits, eps = 0.1, Adam. Fix: the reporter's formula.

Measured (600 steps; held-out accuracy at the 0.5 threshold on 500 digits, and the mean
predicted probability of the held-out positives): seed 0: accuracy 0.850 for the bug
against 0.972 for the fixed twin (positives' mean probability 0.52 against 0.90); seeds
shifted by 1000: 0.838 against 0.966 (0.52 against 0.89).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._reg169 import split

TITLE = "Possible Bug in LabelSmoothing for Binary Cross Entropy"
LINK = "https://github.com/eladhoffer/utils.pytorch/issues/13"
EXPECTED = ("SMOOTHED_BINARY_TARGETS_ASYMMETRIC",)
STEPS = 600
EPS = 0.1


def smoothed(target, fixed):
    target = target.float()
    if fixed:
        return target * (1 - EPS) + EPS / 2
    return target.add_(EPS).div_(2.0)       # BUG: 1 -> (1 + eps) / 2, 0 -> eps / 2


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split()
    y, y_held = (y >= 5).float(), (y_held >= 5).float()
    model = mlp(outputs=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, 64):
            logits = model(x[index]).squeeze(1)
            loss = nn.functional.binary_cross_entropy_with_logits(
                logits, smoothed(y[index], fixed))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        p = torch.sigmoid(model(x_held).squeeze(1))
    mon.held_out_accuracy = round(((p > 0.5).float() == y_held).float().mean().item(), 3)
    mon.positive_probability = round(p[y_held == 1].mean().item(), 2)
    return mon
