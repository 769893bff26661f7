"""A multi-task model builds its task-specific output layers keyed by the number of labels,
so two different tasks that both have two labels get the SAME output layer. Batches come
from one task at a time (as in MT-DNN's training), and the one layer is asked for task A's
labels on one batch and task B's on the next, for the same kind of inputs: where the two
tasks disagree it can only split the difference, and both tasks stay well below what they
reach with a layer each. Nothing crashes and the loss still falls.

Reported: "Shared task-specific heads" - https://github.com/namisan/mt-dnn/issues/14 ("do all
GLUE tasks with the same n_class share the same task-specific classifier? Intuitively this
seems a little strange that as distinct tasks as SST and QQP use the same classifier"; the
maintainer: "Thanks for pointing it out. It is a code cleaning bug. We'll fix it soon.").
Here two binary tasks on the digits - 'is it 5 or more' and 'is it odd' - over one shared
trunk, batches alternating between the tasks. Fix: one output layer per task (keyed by the
task, not by its label count).

Measured (300 steps, 297 held-out digits, mean of the two tasks): the bug's held-out accuracy
0.78 (each task right where the two agree, and about half right elsewhere), the fixed
twin's 0.90.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Shared task-specific heads"
LINK = "https://github.com/namisan/mt-dnn/issues/14"
EXPECTED = ("CONFLICTING_LABELS_ON_IDENTICAL_INPUTS",)
STEPS = 300
HELD_OUT = 297
TASKS = {"high": lambda y: (y >= 5).long(), "odd": lambda y: (y % 2).long()}
N_CLASS = {"high": 2, "odd": 2}


class MultiTaskNet(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.trunk = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        if fixed:
            self.heads = nn.ModuleDict({task: nn.Linear(64, n) for task, n in N_CLASS.items()})
        else:
            # BUG: one output layer per label count, shared by every task with that count
            self.heads = nn.ModuleDict({str(n): nn.Linear(64, n) for n in set(N_CLASS.values())})

    def forward(self, x, task):
        key = task if self.fixed else str(N_CLASS[task])
        return self.heads[key](self.trunk(x))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = MultiTaskNet(fixed)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    names = list(TASKS)
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x[:-HELD_OUT], y[:-HELD_OUT], steps)):
            task = names[step % len(names)]          # each batch from one task, in turn
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb, task), TASKS[task](yb))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        held, labels = x[-HELD_OUT:], y[-HELD_OUT:]
        accuracies = [float((model(held, task).argmax(1) == TASKS[task](labels)).float().mean())
                      for task in names]
    mon.test_accuracy = round(sum(accuracies) / len(accuracies), 3)
    return mon
