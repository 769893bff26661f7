"""Class-incremental training whose replay memory is switched on by a config flag that the
code compares with the STRING ``"yes"``: set to ``True`` (the boolean the option reads like)
it is never equal to ``"yes"``, so the exemplars are stored after every task but never
mixed into the next task's batches. The run is plain fine-tuning, task after task: each
task is learned (the loss falls the same way in every task) and the earlier ones are
wiped, and no error or warning says the memory is unused.

Reported: "Where do you use the replay buffer?" -
https://github.com/facebookresearch/Adversarial-Continual-Learning/issues/15 (with
``use_memory = True`` in the config "it has no effect"; the maintainer: "For using memory
you should have ``use_memory="yes"`` and ``samples=X`` where X is the number of samples per
class"). Here a 64-unit MLP with one ten-way head learns the digits two classes at a time
(five tasks, 300 Adam steps each, all watched), keeping 20 random exemplars of each class
it has seen. Fix: the value the code compares with, ``use_memory="yes"`` (a boolean test
would do as well).

Measured (held-out accuracy on all ten digits after the fifth task): seed 0: 0.18 with the
bug against 0.87 fixed; seeds shifted by 1000: 0.18 against 0.86. (With 100 steps a task
the fixed twin was still undertrained - 0.61 - and its last task's loss ended well above
the earlier tasks' lows, which watch named LOSS_DIVERGING; at 300 it learns and is silent.)
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._cl156 import (PER_CLASS, STEPS_PER_TASK, TASKS, Net, accuracy,
                                         exemplars, rows_of, splits, task_batches)

TITLE = "Where do you use the replay buffer?"
LINK = "https://github.com/facebookresearch/Adversarial-Continual-Learning/issues/15"
EXPECTED = ("CLASSES_VANISH_FROM_TARGETS",)
STEPS = STEPS_PER_TASK * len(TASKS)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    config = {"use_memory": "yes" if fixed else True, "samples": PER_CLASS}  # BUG: True
    x_train, y_train, x_held, y_held = splits()
    model = Net(hidden=64, outputs=10)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    memory = torch.zeros(0, dtype=torch.long)
    per_task = steps // len(TASKS)
    with nd.watch(model, optimizer, **watch) as mon:
        for classes in TASKS:
            rows = torch.nonzero(rows_of(y_train, classes)).flatten()
            if config["use_memory"] == "yes":
                rows = torch.cat([rows, memory])
            for index in task_batches(rows, per_task):
                optimizer.zero_grad()
                loss = F.cross_entropy(model(x_train[index]), y_train[index])
                loss.backward()
                optimizer.step()
                mon.step(loss)
            memory = torch.cat([memory, exemplars(y_train, classes, config["samples"])])
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", run(fixed).held_out_accuracy)
