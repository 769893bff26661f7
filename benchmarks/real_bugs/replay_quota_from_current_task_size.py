"""Class-incremental learning with a rehearsal memory split evenly among the tasks seen so
far: the per-task quota is computed from the size of the CURRENT task's data, min(memory
size, len(current data)) // tasks seen, instead of from the memory size. When a task has
fewer samples than the memory holds, every task's share - the old ones shrink to it too -
is a fraction of what fits, the memory stays mostly empty, the old classes are a small
share of what each batch is drawn from, and the single head forgets them much more than
the memory was sized for. The loss falls as usual.

Reported: "Possible Replay bug" - https://github.com/ContinualAI/avalanche/issues/543
("What if len(curr_data) is smaller than self.mem_size? It would occur to me that 'h' is
not correct anymore"). Here split digits (five tasks of two classes, about 260 training
digits each), one 64-unit MLP with a 10-way head, Adam 1e-3, 80 steps per task of 64
digits drawn from the task's data concatenated with the memory (800 digits at most).

Fix: quota = memory size // tasks seen, capped at the current task's size (the memory is
then filled: about 200 digits per task by the last task instead of about 65).

Measured (held-out accuracy over all ten classes after the last task): 0.718 with the bug,
0.832 fixed; seeds + 1000: 0.734 vs 0.822.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._cl325 import (TASKS, class_il_accuracy, single_head, splits,
                                         task_batches, task_rows)

TITLE = "Possible Replay bug"
LINK = "https://github.com/ContinualAI/avalanche/issues/543"
EXPECTED = ("CLASS_IMBALANCE", "RARE_CLASS_NEVER_PREDICTED")
STEPS = 400
MEMORY_SIZE = 800
BATCH = 64


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, xh, yh = splits()
    model = single_head()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    memory = {}                                   # task -> rows of x kept for rehearsal
    with nd.watch(model, optimizer, **watch) as mon:
        for task in range(TASKS):
            rows = task_rows(y, task)
            # the memory is concatenated to the new task's data, batches drawn from the union
            union = torch.cat([rows] + list(memory.values()))
            for index in task_batches(union, max(1, steps // TASKS), BATCH, rng):
                loss = F.cross_entropy(model(x[index]), y[index])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                mon.step(loss)
            seen = task + 1
            if fixed:
                quota = min(MEMORY_SIZE // seen, len(rows))
            else:
                quota = min(MEMORY_SIZE, len(rows)) // seen     # BUG: the current data's size
            for old in memory:
                memory[old] = memory[old][:quota]
            memory[task] = rows[torch.from_numpy(rng.permutation(len(rows))[:quota])]
    mon.held_out_accuracy = class_il_accuracy(model, xh, yh)
    return mon
