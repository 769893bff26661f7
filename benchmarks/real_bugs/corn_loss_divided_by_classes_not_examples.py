"""The CORN ordinal loss (Shi, Cao & Raschka) sums binary cross-entropies over K-1
conditional tasks - task k is "y > k" on the examples with y > k-1 - and must divide the
sum by the number of examples in all conditional training sets. coral-pytorch's
``corn_loss`` divided by the number of classes instead: the loss (and its gradient) is the
SUM over a batch's ~350 task-examples divided by 10, about 35 times the mean, and grows
with the batch size. Under SGD at a rate tuned for the averaged loss, the steps are 35
times too long: training blows up and the ordinal predictions are far worse.

Reported: "Fix denominator in corn loss" -
https://github.com/Raschka-research-group/coral-pytorch/pull/22 ("According to Equ 5, the
denominator of the loss function should be the number of all examples in conditional
training sets"; the maintainer confirmed it and reran the examples for their learning
rates). Here a small network ranks the digits 0-9 as ordinal labels with CORN's K-1 = 9
outputs, trained with SGD.
Fix: divide by the number of task-examples (``num_examples``), not ``num_classes``.

Measured (300 SGD steps at 1.0, batch 64, 297 held-out digits, seed 0): held-out accuracy
of the predicted rank 0.111 for the bug (its loss ends near 14.6: the run blew up and
stays there), 0.835 for the fixed twin (final loss 0.03).
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Fix denominator in corn loss"
LINK = "https://github.com/Raschka-research-group/coral-pytorch/pull/22"
EXPECTED = ("LOSS_SUMMED_OVER_BATCH",)
STEPS = 300
HELD_OUT = 297
CLASSES = 10
LR = 1.0


def corn_loss(logits, y, fixed):
    total, examples = 0.0, 0
    for task in range(CLASSES - 1):
        member = y > task - 1                   # the conditional training set of task k
        if not member.any():
            continue
        label = (y[member] > task).float()
        pred = logits[member, task]
        total = total - torch.sum(F.logsigmoid(pred) * label
                                  + (F.logsigmoid(pred) - pred) * (1 - label))
        examples += int(member.sum())
    return total / (examples if fixed else CLASSES)     # BUG: divided by the classes


def predict(logits):
    """CORN's rank: the number of conditional probabilities' running products above 0.5."""
    return (torch.cumprod(torch.sigmoid(logits), dim=1) > 0.5).sum(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, CLASSES - 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            optimizer.zero_grad()
            loss = corn_loss(model(xb), yb, fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        rank = predict(model(x[-HELD_OUT:]))
    truth = y[-HELD_OUT:]
    mon.extra = {"test_accuracy": round(float((rank == truth).float().mean()), 3),
                 "test_mae": round(float((rank - truth).abs().float().mean()), 3)}
    return mon
