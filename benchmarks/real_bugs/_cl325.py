"""What the batch-325 cases (hand-written continual learning from first tutorials) share:
the 8x8 digits learned as a sequence of five tasks, either "split digits" (five tasks of two
classes each: (0, 1), (2, 3), ...) or "permuted digits" (all ten classes each time, task t's
64 pixels in a fixed random order of its own, task 0 as they are). The last 500 digits are
held out and every task is scored there. A one-hidden-layer backbone feeds one 10-way head,
or one head per task (task-incremental). Each case keeps its own loop and its bug."""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

HELD_OUT = 500
TASKS = 5
CLASSES_PER_TASK = 2


def task_of(y):
    """The task each label belongs to (labels 2t and 2t + 1 are task t)."""
    return torch.div(y, CLASSES_PER_TASK, rounding_mode="floor")


def splits():
    """(x_train, y_train, x_held, y_held) of the digits, (N, 64) in [0, 1], int64 labels."""
    x, y = classification()
    return x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]


def task_rows(y, task):
    """Indices of the rows of ``y`` that belong to ``task``."""
    return torch.nonzero(task_of(y) == task).flatten()


def task_batches(rows, steps, batch_size, rng):
    """``steps`` shuffled batches of indices drawn from ``rows`` (reshuffled each pass)."""
    done = 0
    while True:
        order = rows[torch.from_numpy(rng.permutation(len(rows)))]
        for start in range(0, len(rows) - batch_size + 1, batch_size):
            yield order[start:start + batch_size]
            done += 1
            if done == steps:
                return


def permutations(rng):
    """The five tasks' pixel orders: the identity first, then four random ones from ``rng``."""
    return [torch.arange(64)] + [torch.from_numpy(rng.permutation(64)) for _ in range(TASKS - 1)]


class MultiHead(nn.Module):
    """A shared backbone and one head per task; ``forward(x, tasks)`` scores each row with
    the head of the task given for it."""

    def __init__(self, hidden=64, outputs=CLASSES_PER_TASK):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(64, hidden), nn.ReLU())
        self.heads = nn.ModuleList(nn.Linear(hidden, outputs) for _ in range(TASKS))

    def forward(self, x, tasks):
        h = self.backbone(x)
        every = torch.stack([head(h) for head in self.heads], 1)        # (B, TASKS, 2)
        return every[torch.arange(len(x)), tasks]


def single_head(hidden=64):
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, 10))


def permuted_task_il_accuracy(model, x, y, perms):
    """Mean over the five permuted tasks of the held-out accuracy, each scored by its head."""
    model.eval()
    with torch.no_grad():
        right = [(model(x[:, perm], torch.full_like(y, t)).argmax(1) == y).float().mean().item()
                 for t, perm in enumerate(perms)]
    model.train()
    return float(np.mean(right))


def permuted_accuracy(model, x, y, perms):
    """Mean over the five permuted tasks of a single-head model's held-out accuracy."""
    model.eval()
    with torch.no_grad():
        right = [(model(x[:, perm]).argmax(1) == y).float().mean().item() for perm in perms]
    model.train()
    return float(np.mean(right))


def task_il_accuracy(model, x, y):
    """Mean over the five tasks of the held-out accuracy, each digit scored by its own head."""
    model.eval()
    with torch.no_grad():
        tasks = task_of(y)
        right = (model(x, tasks).argmax(1) == y % CLASSES_PER_TASK).float()
    model.train()
    return float(np.mean([right[tasks == t].mean().item() for t in range(TASKS)]))


def class_il_accuracy(model, x, y):
    """Held-out accuracy over all ten classes (no task given at test time)."""
    model.eval()
    with torch.no_grad():
        accuracy = (model(x).argmax(1) == y).float().mean().item()
    model.train()
    return accuracy
