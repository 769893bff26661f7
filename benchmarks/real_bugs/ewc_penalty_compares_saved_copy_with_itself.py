"""Elastic weight consolidation: after the first task the weights are saved (a copy) with
their Fisher importances, and while the next task trains a penalty should pull each weight
back towards its saved copy. The penalty's "current" weight is sliced out of the SAVED copy
instead of the model's parameter, so it compares the copy with itself: it is exactly 0 on
every step, carries no gradient, and the first task is forgotten as if EWC were off.

Reported: "in EWC the penalty is 0" -
https://github.com/ContinualAI/avalanche/issues/1099 ("the penalty is always 0 ... because
`cur_param` is equal to `saved_param`"; the maintainer: "you are right. It should be
`cur_param = cur_param[:n_units]`"). Here a digits MLP learns the digits (task 1, 300
steps), then the same digits with their pixels permuted (task 2, watched), with the EWC
penalty (lambda 1000) on the diagonal Fisher of task 1.
Measured: task-1 accuracy on 500 held-out digits after task 2 (seed 0): 66.4% with the
penalty at 0, 79.6% with it (task 2: 89.6% and 86.0%).
Fix: slice the current parameter, ``cur_param = param[:n_units]``.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._permuted_digits import (after_first_task, held_out_accuracies,
                                                   second_task_batches)

TITLE = "in EWC the penalty is 0"
LINK = "https://github.com/ContinualAI/avalanche/issues/1099"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT", "LOSS_TERM_ZERO_WITHOUT_GRADIENT")
STEPS = 200
LAMBDA = 1000.0


def fisher_diagonal(model, x, y, batches_read=10):
    importances = [torch.zeros_like(p) for p in model.parameters()]
    for xb, yb in zip(x.split(64)[:batches_read], y.split(64)[:batches_read]):
        model.zero_grad()
        F.cross_entropy(model(xb), yb).backward()
        for imp, p in zip(importances, model.parameters()):
            imp += p.grad.detach() ** 2 / batches_read
    model.zero_grad()
    return importances


def ewc_penalty(model, saved, importances, fixed):
    penalty = 0.0
    for (name, param), saved_param, imp in zip(model.named_parameters(), saved, importances):
        n_units = saved_param.shape[0]
        # BUG (unfixed): the current weight sliced out of the saved copy
        cur_param = param[:n_units] if fixed else saved_param[:n_units]
        penalty = penalty + (imp * (cur_param - saved_param).pow(2)).sum()
    return penalty


def train(fixed=False, steps=STEPS, **watch):
    """The monitor, the trained model and the permutation of task 2."""
    torch.manual_seed(0)
    x_train, y_train, permutation, model, optimizer, saved = after_first_task()
    importances = fisher_diagonal(model, x_train, y_train)
    with nd.watch(model, optimizer, **watch) as mon:                   # task 2
        for xb, yb in second_task_batches(x_train, y_train, permutation, steps):
            optimizer.zero_grad()
            task_loss = F.cross_entropy(model(xb), yb)
            loss = task_loss + LAMBDA * ewc_penalty(model, saved, importances, fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, model, permutation


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]


def task_one_accuracy(fixed):
    """(task-1 accuracy, task-2 accuracy) on the held-out digits after task 2."""
    _, model, permutation = train(fixed)
    return held_out_accuracies(model, permutation)


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", task_one_accuracy(fixed))
