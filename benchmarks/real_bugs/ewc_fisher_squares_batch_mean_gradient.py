"""Elastic weight consolidation whose Fisher diagonal is the square of the gradient of a
BATCH-MEAN log-likelihood, instead of the mean of each sample's squared gradient. The
diagonal of the Fisher information is E[(d log p(y|x) / dw)^2], one square per sample: the
squared mean gradient plus the samples' spread. The square of a mean over 64 samples keeps
the first but only a 64th of the spread, and at the end of the old task, where the model
sits near a minimum of the old loss and the per-sample gradients cancel, the spread is
nearly all there is. The importances come out 30 to 55 times too small here, the penalty that should hold the old task's weights barely pulls, and the
new task overwrites the old one. Nothing errors: the penalty is positive, it falls, and
the new task trains as well as ever (better, for having nothing to hold it).

Reported: "this ewc implementation CODE has theoretical ERROR which prevent ewc to work
properly" -
https://github.com/shivamsaboo17/Overcoming-Catastrophic-forgetting-in-Neural-Networks/issues/6
(the importance is computed from the mean of the log-likelihoods of a batch, and the
gradient of that mean is squared: "diagonal element of Fisher matrix is sum of squared
gradients of log_liklihoods but not squared sum of gradients"; a commenter posted a version
that takes each sample's gradient, squares it, and averages the squares). Here a 256-unit
MLP learns the digits (300 Adam steps, unwatched), then the same digits with their 64
pixels permuted (300 steps, watched) under an EWC penalty of weight 1000 with the
importances estimated on 512 training digits (8 batches of 64 for the bug). Fix: one
gradient per sample, squared, averaged over the samples.

Measured (old-task accuracy on 500 held-out digits after the new task; the new task's in
brackets): seed 0: 0.75 with the bug against 0.90 fixed (new 0.88 against 0.83); seeds
shifted by 1000: 0.53 against 0.85 (new 0.87 against 0.81). Before the new task the old
one scored 0.93 and 0.92. The bug's importances sum to 0.051 against 2.7 fixed (shifted:
0.093 against 3.1).
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._cl156 import Net, accuracy, pretrain, splits
from benchmarks.real_bugs._common import batches

TITLE = ("this ewc implementation CODE has theoretical ERROR which prevent ewc to work "
         "properly")
LINK = "https://github.com/shivamsaboo17/Overcoming-Catastrophic-forgetting-in-Neural-Networks/issues/6"  # noqa: E501
EXPECTED = ("PENALTY_IMPORTANCES_FROM_BATCH_MEAN",)
STEPS = 300
FIRST_TASK_STEPS = 300
LAMBDA = 1000.0
FISHER_SAMPLES, FISHER_BATCH = 512, 64


def fisher_diagonals(model, x, y, fixed):
    squared = [torch.zeros_like(p) for p in model.parameters()]
    if fixed:          # the mean over the samples of each sample's squared gradient
        for xi, yi in zip(x, y):
            model.zero_grad()
            F.log_softmax(model(xi[None]), dim=1)[0, yi].backward()
            for total, p in zip(squared, model.parameters()):
                total += p.grad.detach() ** 2 / len(x)
    else:              # BUG: the squared gradient of each batch's mean log-likelihood
        count = len(x) // FISHER_BATCH
        for start in range(0, count * FISHER_BATCH, FISHER_BATCH):
            model.zero_grad()
            log_p = F.log_softmax(model(x[start:start + FISHER_BATCH]), dim=1)
            log_p.gather(1, y[start:start + FISHER_BATCH, None]).mean().backward()
            for total, p in zip(squared, model.parameters()):
                total += p.grad.detach() ** 2 / count
    model.zero_grad()
    return squared


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_held, y_held = splits()
    permutation = torch.randperm(64)
    model = pretrain(Net(hidden=256, outputs=10), x_train, y_train, FIRST_TASK_STEPS)
    saved = [p.detach().clone() for p in model.parameters()]
    importances = fisher_diagonals(model, x_train[:FISHER_SAMPLES],
                                   y_train[:FISHER_SAMPLES], fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:                   # the new task
        for xb, yb in batches(x_train[:, permutation], y_train, steps, seed=1):
            optimizer.zero_grad()
            penalty = sum((imp * (p - old).pow(2)).sum()
                          for p, old, imp in zip(model.parameters(), saved, importances))
            loss = F.cross_entropy(model(xb), yb) + LAMBDA * penalty
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.old_task_accuracy = accuracy(model, x_held, y_held)
    mon.new_task_accuracy = accuracy(model, x_held[:, permutation], y_held)
    return mon


if __name__ == "__main__":
    for fixed in (False, True):
        m = run(fixed)
        print("fixed" if fixed else "bug", m.old_task_accuracy, m.new_task_accuracy)
