"""Knowledge distillation with ``nn.KLDivLoss()`` at its default reduction, 'mean': the sum
over the classes is divided by the number of classes as well as by the batch, so the
distillation loss (and its gradient) is ten times too small on ten classes and a student
trained on it alone (alpha = 1) barely moves.

Reported: "Questions about KD loss" -
https://github.com/yuanli2333/Teacher-free-Knowledge-Distillation/issues/5 (``nn.KLDivLoss()``
without ``batchmean``: "I once used nn.KLDivLoss() without batch_mean, and the experiment
failed when I set alpha=1"; the same code was questioned again in issue #41: "the KL loss
value could be quite small because it gets averaged"). Here a digits MLP distilled by SGD
from a teacher trained first, temperature 4, alpha 1. Fix: reduction="batchmean", the KL
divergence as defined (a sum over the classes, a mean over the batch).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Questions about KD loss"
LINK = "https://github.com/yuanli2333/Teacher-free-Knowledge-Distillation/issues/5"
EXPECTED = ("KL_DIV_MEAN_OVER_CLASSES",)
STEPS = 150
TEMPERATURE = 4.0


def trained_teacher(x, y):
    teacher = mlp(hidden=128)
    optimizer = torch.optim.Adam(teacher.parameters(), lr=3e-3)
    for xb, yb in batches(x, y, 150, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(teacher(xb), yb).backward()
        optimizer.step()
    return teacher.eval()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    teacher = trained_teacher(x, y)
    student = mlp(hidden=32)
    optimizer = torch.optim.SGD(student.parameters(), lr=0.1, momentum=0.9)
    # BUG when not fixed: the default reduction averages over the classes too
    kl = nn.KLDivLoss(reduction="batchmean") if fixed else nn.KLDivLoss()
    t = TEMPERATURE
    with nd.watch(student, optimizer, **watch) as mon:
        for xb, _ in batches(x, y, steps):
            with torch.no_grad():
                target = (teacher(xb) / t).softmax(-1)
            optimizer.zero_grad()
            loss = kl((student(xb) / t).log_softmax(-1), target) * t * t
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
