"""Class-incremental learning with exemplar replay (iCaRL-style): after each task a few
exemplars per class are stored, and the next task should train on its own data joined with
those exemplars. The joined set is built under one name and the loop trains on the other,
the new task's data alone: the exemplars are never seen again, the earlier classes vanish
from every batch after the first task, and their columns of the shared head are pushed
down by every step. The run prints a falling loss and the earlier classes are forgotten
as if there were no memory at all.

Reported: "iCaRL's accuracy different from 'Three scenarios for continual learning'" -
https://github.com/GMvandeVen/continual-learning/issues/2 (iCaRL on split MNIST, class-
incremental, reached about 73% instead of about 94%; the maintainer: "The stored exemplars
were not actually being added to the training data. They were added to [training_dataset],
but then erroneously [train_dataset] was used to train on"). Here the digits 0-4 are task 1
and 5-9 task 2, one MLP with a ten-way head, 20 exemplars per earlier class kept; both
tasks are trained under one watch.
Fix: train on the joined set (the task's data plus the stored exemplars).

Measured (250 + 250 steps, 297 held-out digits, seed 0): held-out accuracy on the classes
of task 1 after task 2 0.0 with the bug, 0.69 with the exemplars replayed (all ten classes:
0.48 and 0.83).
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "iCaRL's accuracy different from 'Three scenarios for continual learning'"
LINK = "https://github.com/GMvandeVen/continual-learning/issues/2"
EXPECTED = ("CLASSES_VANISH_FROM_TARGETS",)
STEPS = 250                     # per task
HELD_OUT = 297
EXEMPLARS_PER_CLASS = 20


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = x[:-HELD_OUT], y[:-HELD_OUT]
    first = y_train < 5
    tasks = [(x_train[first], y_train[first]), (x_train[~first], y_train[~first])]
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    memory_x, memory_y = x_train[:0], y_train[:0]
    with nd.watch(model, optimizer, **watch) as mon:
        for task, (task_x, task_y) in enumerate(tasks):
            training_x = torch.cat([task_x, memory_x])      # the task's data + exemplars
            training_y = torch.cat([task_y, memory_y])
            train_x, train_y = (training_x, training_y) if fixed else (task_x, task_y)  # BUG
            for xb, yb in batches(train_x, train_y, steps, seed=task):
                optimizer.zero_grad()
                loss = F.cross_entropy(model(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
            for label in task_y.unique():                   # store exemplars of this task
                keep = (task_y == label).nonzero().flatten()[:EXEMPLARS_PER_CLASS]
                memory_x = torch.cat([memory_x, task_x[keep]])
                memory_y = torch.cat([memory_y, task_y[keep]])
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    truth = y[-HELD_OUT:]
    old = truth < 5
    mon.extra = {"old_class_accuracy": round(float((predicted[old] == truth[old]).float().mean()), 3),
                 "test_accuracy": round(float((predicted == truth).float().mean()), 3)}
    return mon


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", run(fixed).extra)
