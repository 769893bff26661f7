"""Learning without Forgetting on a multi-head model: while a new task trains, the old
task's head should keep answering the new inputs as the model saved at the end of the old
task did, through a distillation term between the two. The plugin computed BOTH outputs
inside one ``torch.no_grad()`` block - the saved model's, as it should, and the current
model's too, by calling it again. The distillation term is a number with no graph behind
it: it is printed and added to the loss, but no gradient reaches the model from it, and
the old task is forgotten as with plain fine-tuning.

Reported: "LwF gradient backpropagation" - https://github.com/ContinualAI/avalanche/issues/1116
("in LwF plugin in the penalty computation the gradient doesn't flow ... where
`y_curr['0'].requires_grad` would return `False`"; the maintainer: "you are correct, this
is a bug"). Here a shared trunk with two five-way heads learns the digits 0-4 (task 1,
head 0), then 5-9 (task 2, head 1, watched) with the LwF term on head 0 (temperature 2,
weight 1).
Fix: compute only the saved model's outputs under ``no_grad``; the current model's outputs
for the old heads with the graph.

Measured (300 + 300 steps, 297 held-out digits, seed 0): task-1 held-out accuracy (head 0)
after task 2 0.84 with the bug, 0.93 with the term's gradient (task 2: 0.97 both).
"""
import copy

import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "LwF gradient backpropagation"
LINK = "https://github.com/ContinualAI/avalanche/issues/1116"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT",)
STEPS = 300
FIRST_TASK_STEPS = 300
HELD_OUT = 297
TEMPERATURE = 2.0
ALPHA = 1.0


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.heads = nn.ModuleList(nn.Linear(64, 5) for _ in range(2))

    def forward(self, x, task):
        return self.heads[task](self.trunk(x))


def distillation(current, previous):
    log_p = F.log_softmax(current / TEMPERATURE, dim=1)
    q = F.softmax(previous / TEMPERATURE, dim=1)
    return F.kl_div(log_p, q, reduction="batchmean") * TEMPERATURE ** 2


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = x[:-HELD_OUT], y[:-HELD_OUT]
    first = y_train < 5
    model = TwoHeads()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for xb, yb in batches(x_train[first], y_train[first], FIRST_TASK_STEPS, seed=0):
        optimizer.zero_grad()
        F.cross_entropy(model(xb, 0), yb).backward()
        optimizer.step()
    previous = copy.deepcopy(model).eval()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train[~first], y_train[~first] - 5, steps, seed=1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb, 1), yb)
            with torch.no_grad():
                old_previous = previous(xb, 0)
                if not fixed:
                    old_current = model(xb, 0)      # BUG: the current outputs without graph
            if fixed:
                old_current = model(xb, 0)
            loss = loss + ALPHA * distillation(old_current, old_previous)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    truth = y[-HELD_OUT:]
    old = truth < 5
    with torch.no_grad():
        first_task = model(x[-HELD_OUT:][old], 0).argmax(1) == truth[old]
        second_task = model(x[-HELD_OUT:][~old], 1).argmax(1) == truth[~old] - 5
    mon.extra = {"old_task_accuracy": round(float(first_task.float().mean()), 3),
                 "new_task_accuracy": round(float(second_task.float().mean()), 3)}
    return mon


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", run(fixed).extra)
