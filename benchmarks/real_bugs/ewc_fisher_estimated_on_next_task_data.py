"""Elastic weight consolidation whose Fisher information - the importance of each weight to
the tasks learned so far - is estimated at the start of each new task from the NEW task's
training data (the data loader at hand), not from the task just finished. The weights are
anchored where they should be, but the penalty protects the weights the new task's inputs
happen to use, not those the old tasks need, so the old tasks are forgotten almost as
without EWC. The loss (cross-entropy plus penalty) falls as usual.

Reported: "EWC的训练" (EWC training) - https://github.com/AprLie/TrafficStream/issues/4
(asked of its EWC: is the importance of the parameters for the previous task computed from
the current task's training data? "the dataset of model.register_ewc_params seems to be the
current task's training set"). Here permuted digits (five tasks of ten classes, each task's
pixels in its own order), one 128-unit MLP with a single 10-way head, SGD 0.05 with
momentum 0.9, 80 steps per task of 32 digits, an empirical diagonal Fisher from 200
per-sample gradients summed over the tasks, penalty weight 30.

Fix: estimate the Fisher at the end of each task, on that task's own data.

Measured (held-out accuracy, mean over the five permuted tasks, after the last task): 0.469
with the bug, 0.720 fixed; seeds + 1000: 0.463 vs 0.616.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._cl325 import (TASKS, permutations, permuted_accuracy, single_head,
                                         splits, task_batches)

TITLE = "EWC的训练"
LINK = "https://github.com/AprLie/TrafficStream/issues/4"
EXPECTED = ("EWC_FISHER_FROM_WRONG_DATA",)
STEPS = 400
FISHER_SAMPLES = 200
EWC_WEIGHT = 30.0
BATCH = 32


def fisher_diagonal(model, x, y):
    """Mean of the squared per-sample gradients of the log-likelihood of the labels."""
    params = [p for p in model.parameters()]
    total = [torch.zeros_like(p) for p in params]
    for row in range(len(x)):
        loss = F.cross_entropy(model(x[row:row + 1]), y[row:row + 1])
        for acc, grad in zip(total, torch.autograd.grad(loss, params)):
            acc += grad ** 2
    return [acc / len(x) for acc in total]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, xh, yh = splits()
    perms = permutations(rng)
    model = single_head(hidden=128)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    fisher = [torch.zeros_like(p) for p in model.parameters()]
    anchor = None
    all_rows = torch.arange(len(x))
    with nd.watch(model, optimizer, **watch) as mon:
        for task in range(TASKS):
            x_task = x[:, perms[task]]
            sample = torch.from_numpy(rng.permutation(len(x))[:FISHER_SAMPLES])
            if task > 0 and not fixed:
                # BUG: the importance of the old weights, read on the new task's data
                for acc, f in zip(fisher, fisher_diagonal(model, x_task[sample], y[sample])):
                    acc += f
                anchor = [p.detach().clone() for p in model.parameters()]
            for index in task_batches(all_rows, max(1, steps // TASKS), BATCH, rng):
                loss = F.cross_entropy(model(x_task[index]), y[index])
                if anchor is not None:
                    penalty = sum((f * (p - a) ** 2).sum()
                                  for f, p, a in zip(fisher, model.parameters(), anchor))
                    loss = loss + EWC_WEIGHT / 2 * penalty
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                mon.step(loss)
            if fixed:
                for acc, f in zip(fisher, fisher_diagonal(model, x_task[sample], y[sample])):
                    acc += f
                anchor = [p.detach().clone() for p in model.parameters()]
    mon.held_out_accuracy = permuted_accuracy(model, xh, yh, perms)
    return mon
