"""Elastic weight consolidation weighs each weight's pull back towards its value after the
old task by that weight's Fisher information, the mean squared gradient of the log
likelihood over samples. The estimate averaged the squared gradients over EVERYTHING,
``(g ** 2).mean()``, instead of over the samples only, ``(g ** 2).mean(dim=0)``: every
parameter tensor gets one number, the importances of its weights are all the same, and
the penalty is a plain pull of whole layers towards their old values. Weights the old task
relies on are held no tighter than weights it never used, so the new task either moves the
important ones (forgetting) or is held back everywhere.

Reported: "The size of fisher matrix is wrong" - https://github.com/kuc2477/pytorch-ewc/issues/2
("fisher_diagonals = [(g ** 2).mean() for g in loglikelihood_grads] should be ...
.mean(dim=0)"; the maintainer: "You are right, and this is a critical bug. I fixed it").
Here an MLP learns the digits (task 1), then the same digits with their pixels permuted
(task 2, watched) with the EWC penalty (lambda 1000) on per-sample squared gradients of the
log likelihood of task 1.
Fix: average over the sample axis only, one importance per weight.

Measured (300 + 200 steps, 500 held-out digits, seed 0): with one importance per tensor
the new task is held back everywhere - task 2 reaches 0.22 held-out accuracy (task 1 kept
at 0.88); with one per weight task 2 reaches 0.76 and task 1 keeps 0.84.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._permuted_digits import (after_first_task, held_out_accuracies,
                                                   second_task_batches)

TITLE = "The size of fisher matrix is wrong"
LINK = "https://github.com/kuc2477/pytorch-ewc/issues/2"
EXPECTED = ("PENALTY_IMPORTANCES_UNIFORM",)
STEPS = 200
LAMBDA = 1000.0
FISHER_SAMPLES = 256


def fisher_diagonals(model, x, y, fixed):
    """The squared gradient of each sample's log likelihood, averaged over the samples."""
    squared = [torch.zeros_like(p) for p in model.parameters()]
    for xi, yi in zip(x, y):
        model.zero_grad()
        F.log_softmax(model(xi[None]), dim=1)[0, yi].backward()
        for total, p in zip(squared, model.parameters()):
            total += p.grad.detach() ** 2 / len(x)
    model.zero_grad()
    # BUG (unfixed): one number per tensor, the mean over the weights as well
    return [g if fixed else g.mean().expand_as(g) for g in squared]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, permutation, model, optimizer, saved = after_first_task()
    importances = fisher_diagonals(model, x_train[:FISHER_SAMPLES], y_train[:FISHER_SAMPLES],
                                   fixed)
    with nd.watch(model, optimizer, **watch) as mon:                   # task 2
        for xb, yb in second_task_batches(x_train, y_train, permutation, steps):
            optimizer.zero_grad()
            penalty = sum((imp * (p - old).pow(2)).sum()
                          for p, old, imp in zip(model.parameters(), saved, importances))
            loss = F.cross_entropy(model(xb), yb) + LAMBDA * penalty
            loss.backward()
            optimizer.step()
            mon.step(loss)
    first, second = held_out_accuracies(model, permutation)
    mon.extra = {"old_task_accuracy": round(first, 3), "new_task_accuracy": round(second, 3)}
    return mon


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", run(fixed).extra)
