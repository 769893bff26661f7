"""Task-incremental learning with one output head per task: every batch carries its task id
and the model routes each sample through that task's head. The data library's task set
built its (x, y, t) triples as ``_prepare(x, y, y)``, so the "task id" handed to the loop
is the sample's LABEL. With task-local labels (0 or 1 in every task) the samples of label 0
all go through head 0 and those of label 1 through head 1: the choice of head already holds
the answer, each head learns to output one constant class, the training loss falls to
nearly zero, and at test time (routed by the real task) the model is at chance.

Reported: "Bug in task_set.py" - https://github.com/Continvvm/continuum/issues/112 ("there
is, I think, a mistake in task_set.py, line 174: x, y, t = self._prepare(x, y, y) instead
of x, y, t = self._prepare(x, y, t)"; the user read the task id from the batch and "used it
as an array index but since with the mistake `_t` was the label tensor instead of the task
id tensor the index was wrong"; the maintainers fixed it and added a test). Here the digits
are split into five two-class tasks (0/1, 2/3, ...), labels task-local, a shared trunk and
five two-way heads, batches mixing the tasks.
Fix: carry the task ids, ``_prepare(x, y, t)``.

Measured (400 steps, 297 held-out digits routed by their real task, seed 0): the bug's
held-out accuracy 0.47 (final training loss 0.0000), the fixed twin's 0.98 (0.007).
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Bug in task_set.py"
LINK = "https://github.com/Continvvm/continuum/issues/112"
EXPECTED = ("INPUT_EQUALS_TARGET_IDS",)
STEPS = 400
HELD_OUT = 297
TASKS = 5


class MultiHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.heads = nn.ModuleList(nn.Linear(64, 2) for _ in range(TASKS))

    def forward(self, x, task):
        features = self.trunk(x)
        every = torch.stack([head(features) for head in self.heads], dim=1)   # (N, T, 2)
        return every[torch.arange(len(x)), task]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, digit = classification()
    task, label = digit // 2, digit % 2                 # five tasks, task-local labels
    triples = torch.stack([label, task if fixed else label], dim=1)   # BUG: (y, y)
    model = MultiHead()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, pair in batches(x[:-HELD_OUT], triples[:-HELD_OUT], steps):
            yb, tb = pair[:, 0], pair[:, 1]
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb, tb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:], task[-HELD_OUT:]).argmax(1)
    mon.extra = {"test_accuracy": round(float((predicted == label[-HELD_OUT:]).float().mean()), 3),
                 "final_loss": round(loss.item(), 4)}
    return mon


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", run(fixed).extra)
