"""A rehearsal memory whose reduce step - trimming every class to its quota of exemplars
after a task's candidates are added - keeps a class only when it has MORE rows than the
quota: the ``if`` that slices a class down to ``per_class`` rows has no ``else`` for the
classes already at (or under) it. The classes stored at the end of earlier tasks sit
exactly at the quota, so each reduce silently drops every one of them and the memory holds
only the task just finished. Replay goes on, on one task's exemplars, and the classes from
two tasks back are forgotten; nothing errors, and the memory is never empty.

Reported: "bug in _reduce method memory.py. Unwanted removal of exemplars in some cases." -
https://github.com/Continvvm/continuum/issues/243 (in ``RehearsalMemory._reduce`` with
``fixed_memory=False``, "if len(indexes) <= self.memory_per_class then you lose all the
stored exemplars for that class since no value is appended"; the reporter added the
``else`` that keeps them; the maintainer: "this was indeed a bug", fixed in 1.1.7). Here a
64-unit MLP with one ten-way head learns the digits two classes at a time (five tasks, 300
Adam steps each, all watched), each task's batches drawn from its own rows and the memory;
after each task every row of its classes is offered to the memory and the memory reduced
to 20 exemplars a class. Fix: keep a class's rows whole when it has no more than the quota.

Measured (held-out accuracy on all ten digits after the fifth task): seed 0: 0.36 with the
bug against 0.87 fixed; seeds shifted by 1000: 0.39 against 0.86. The bug's memory ends
with the two last classes (40 rows), the fixed one with all ten (200). (With 100 steps a
task the fixed twin was undertrained - 0.61 - and watch named its last task's loss
LOSS_DIVERGING; at 300 it learns and is silent.)
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._cl156 import (PER_CLASS, STEPS_PER_TASK, TASKS, Net, accuracy,
                                         exemplars, rows_of, splits, task_batches)

TITLE = "bug in _reduce method memory.py. Unwanted removal of exemplars in some cases."
LINK = "https://github.com/Continvvm/continuum/issues/243"
EXPECTED = ("CLASSES_VANISH_FROM_TARGETS",)
STEPS = STEPS_PER_TASK * len(TASKS)


def reduce(rows, labels, per_class, fixed):
    """Every class of the memory trimmed to ``per_class`` rows."""
    kept = []
    for c in torch.unique(labels[rows]).tolist():
        of_class = rows[labels[rows] == c]
        if len(of_class) > per_class:
            kept.append(of_class[:per_class])
        elif fixed:                     # BUG (unfixed): no else, the class is dropped
            kept.append(of_class)
    return torch.cat(kept)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_held, y_held = splits()
    model = Net(hidden=64, outputs=10)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    memory = torch.zeros(0, dtype=torch.long)
    per_task = steps // len(TASKS)
    with nd.watch(model, optimizer, **watch) as mon:
        for classes in TASKS:
            rows = torch.cat([torch.nonzero(rows_of(y_train, classes)).flatten(), memory])
            for index in task_batches(rows, per_task):
                optimizer.zero_grad()
                loss = F.cross_entropy(model(x_train[index]), y_train[index])
                loss.backward()
                optimizer.step()
                mon.step(loss)
            candidates = torch.cat([memory, exemplars(y_train, classes)])
            memory = reduce(candidates, y_train, PER_CLASS, fixed)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    mon.memory_classes = len(torch.unique(y_train[memory]))
    return mon


if __name__ == "__main__":
    for fixed in (False, True):
        m = run(fixed)
        print("fixed" if fixed else "bug", m.held_out_accuracy, m.memory_classes)
