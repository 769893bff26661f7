"""Task-incremental learning with one output head per task and a small replay memory: the
replayed digits of earlier tasks are mixed into each batch, but the whole batch is scored by
the head of the task being trained now. The old heads never see their replayed digits again,
so nothing holds them to the backbone as it moves on (the replay only teaches the current
head the old tasks), and every old task is forgotten as if there were no memory. The loss
falls as usual.

Reported: "MultiHeadPlugin working incorrectly with Replay" -
https://github.com/ContinualAI/avalanche/issues/502 ("the replayed samples are predicting
from the current head instead of the previous one corresponding to their experience").
Here permuted digits (five tasks of ten classes, each task's pixels in its own order), a
64-unit backbone with one 10-way head per task, Adam 1e-3, 80 steps per task of 32 new
digits plus (from the second task on) 32 replayed ones from a memory of 200 digits per
finished task, each kept with its task id.

Fix: score each row with its own task's head (the task id travels with the replayed digit).

Measured (held-out task-incremental accuracy, mean of the five tasks, each task scored by
its own head): 0.683 with the bug, 0.831 fixed; seeds + 1000: 0.655 vs 0.817.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._cl325 import (TASKS, MultiHead, permutations,
                                         permuted_task_il_accuracy, splits, task_batches)

TITLE = "MultiHeadPlugin working incorrectly with Replay"
LINK = "https://github.com/ContinualAI/avalanche/issues/502"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 400
MEMORY_PER_TASK = 200
BATCH = 32


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, xh, yh = splits()
    perms = permutations(rng)
    model = MultiHead(outputs=10)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    memory_x, memory_y, memory_task = [], [], []
    all_rows = torch.arange(len(x))
    with nd.watch(model, optimizer, **watch) as mon:
        for task in range(TASKS):
            x_task = x[:, perms[task]]
            for index in task_batches(all_rows, max(1, steps // TASKS), BATCH, rng):
                xb, yb = x_task[index], y[index]
                tasks = torch.full_like(yb, task)
                if memory_x:
                    kept_x, kept_y = torch.cat(memory_x), torch.cat(memory_y)
                    pick = torch.from_numpy(rng.integers(0, len(kept_x), BATCH))
                    xb = torch.cat([xb, kept_x[pick]])
                    yb = torch.cat([yb, kept_y[pick]])
                    tasks = torch.cat([tasks, torch.cat(memory_task)[pick]])
                if fixed:
                    heads = tasks                           # each digit's own task head
                else:
                    heads = torch.full_like(yb, task)       # BUG: the current head for all
                loss = F.cross_entropy(model(xb, heads), yb)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                mon.step(loss)
            keep = torch.from_numpy(rng.permutation(len(x))[:MEMORY_PER_TASK])
            memory_x.append(x_task[keep])
            memory_y.append(y[keep])
            memory_task.append(torch.full((len(keep),), task))
    mon.held_out_accuracy = permuted_task_il_accuracy(model, xh, yh, perms)
    return mon
