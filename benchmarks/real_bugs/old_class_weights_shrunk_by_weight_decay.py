"""Class-incremental fine-tuning that keeps the earlier classes' output weights out of the
loss: on a new task the cross-entropy reads only the new classes' columns,
``cross_entropy(logits[:, known:], y - known)``, so that (as the README promises) "weights
corresponding to the outputs of previous classes are not updated". They are updated: the
optimizer still holds them, their gradient is an exact zero rather than None, and SGD's
weight decay shrinks them on every step. The earlier classes' logits fade towards zero
while the new classes' grow, and the earlier classes stop being predicted.

Reported: "why loss_clf = F.cross_entropy(logits[:, self._known_classes:], fake_targets)?" -
https://github.com/LAMDA-CL/PyCIL/issues/7 (the maintainer: "here is indeed a bug caused by
weight decay that I ignored before. Since even the old prototypes are not used to calculate
the final loss, the old prototypes will still be slightly changed by the weight decay").
Here an MLP learns the digits 0-4 (task 1), then its trunk is kept fixed and the ten-way
head learns 5-9 from the new columns only (task 2, watched), SGD with weight decay 1e-2.
Fix: leave the earlier classes' rows out of the decay (a separate parameter or group
without weight decay for them, or the decay written into the loss for the trained rows
only, as here).

Measured (300 + 300 steps, 297 held-out digits, seed 0): the earlier classes' held-out
accuracy after task 2 is 0.0 with the bug (their rows shrink to 0.04 of their norm) and
0.93 with the decay on the new rows only (all ten classes: 0.44 and 0.52, the trunk being
kept from task 1).
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "why loss_clf = F.cross_entropy(logits[:, self._known_classes:], fake_targets)?"
LINK = "https://github.com/LAMDA-CL/PyCIL/issues/7"
EXPECTED = ("WEIGHT_DECAY_MOVES_UNTRAINED_WEIGHTS",)
STEPS = 300
FIRST_TASK_STEPS = 300
HELD_OUT = 297
KNOWN = 5
WEIGHT_DECAY = 1e-2


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = x[:-HELD_OUT], y[:-HELD_OUT]
    trunk = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
    head = nn.Linear(64, 10)
    model = nn.Sequential(trunk, head)
    first = y_train < KNOWN
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for xb, yb in batches(x_train[first], y_train[first], FIRST_TASK_STEPS, seed=0):
        optimizer.zero_grad()
        F.cross_entropy(model(xb)[:, :KNOWN], yb).backward()
        optimizer.step()
    trunk.requires_grad_(False)
    optimizer = torch.optim.SGD(head.parameters(), lr=0.1, momentum=0.9,
                                weight_decay=0.0 if fixed else WEIGHT_DECAY)
    kept_weight = head.weight[:KNOWN].detach().clone()
    kept_bias = head.bias[:KNOWN].detach().clone()
    with nd.watch(head, optimizer, **watch) as mon:
        for xb, yb in batches(x_train[~first], y_train[~first], steps, seed=1):
            optimizer.zero_grad()
            logits = head(trunk(xb))
            loss = F.cross_entropy(logits[:, KNOWN:], yb - KNOWN)   # earlier columns unread
            if fixed:                       # the decay on the new classes' rows alone
                loss = loss + WEIGHT_DECAY / 2 * (head.weight[KNOWN:].pow(2).sum()
                                                  + head.bias[KNOWN:].pow(2).sum())
            loss.backward()
            optimizer.step()                # BUG: weight decay shrinks the unread rows too
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    truth = y[-HELD_OUT:]
    old = truth < KNOWN
    shrink = head.weight[:KNOWN].detach().norm() / kept_weight.norm()
    mon.extra = {"old_class_accuracy": round(float((predicted[old] == truth[old]).float().mean()), 3),
                 "test_accuracy": round(float((predicted == truth).float().mean()), 3),
                 "old_rows_norm_ratio": round(float(shrink), 3)}
    return mon


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", run(fixed).extra)
