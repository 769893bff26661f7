"""Distillation with KLDivLoss given the student's probabilities where it expects
log-probabilities: the loss computed is sum p_teacher * (log p_teacher - p_student), not
the KL divergence, and its gradient barely pushes the student toward the teacher.

Reported: "typo in KLDivTeacherList?" - https://github.com/sebastian-hofstaetter/matchmaker/issues/18
(`self.kl(scores.softmax(-1), labels.softmax(-1))`: "PyTorch documentation for KLDivLoss
says ... the input given is expected to contain log-probabilities"). Here a digits MLP
distilled from a teacher trained first. Fix: log_softmax for the student's input.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "typo in KLDivTeacherList?"
LINK = "https://github.com/sebastian-hofstaetter/matchmaker/issues/18"
EXPECTED = ("NLL_ON_PROBABILITIES",)
STEPS = 120


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
    optimizer = torch.optim.Adam(student.parameters(), lr=3e-3)
    kl = nn.KLDivLoss(reduction="batchmean")
    with nd.watch(student, optimizer, **watch) as mon:
        for xb, _ in batches(x, y, steps):
            with torch.no_grad():
                target = teacher(xb).softmax(-1)
            optimizer.zero_grad()
            scores = student(xb)
            # BUG when not fixed: probabilities where log-probabilities belong
            inputs = scores.log_softmax(-1) if fixed else scores.softmax(-1)
            loss = kl(inputs, target)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
