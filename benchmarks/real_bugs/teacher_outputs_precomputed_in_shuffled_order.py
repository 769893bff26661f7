"""Knowledge distillation whose teacher outputs are computed once, before training, by one
pass over a shuffling loader, then read back by batch index inside the training loop, whose
loader shuffles anew: batch i of an epoch gets the teacher's outputs for another batch of
samples. The soft targets belong to other images; the soft term (weight 0.9) teaches the
student to answer each digit with a random other digit's distribution.

Reported: "Fix bug about teacher output" -
https://github.com/haitongli/knowledge-distillation-pytorch/pull/17 ("The original
implementation has bugs. The teacher's output disagree with batch's labels."; the earlier
PR #16: "In loss_fn_kd(), you can compare the argmax index with label to find that. To fix
this, I use torch.no_grad to output teacher and student in the same time"; merged). Here the
digits (the last 400 held out), a 256-wide teacher trained first, a 32-wide student
distilled with alpha 0.9 and T 4 by SGD. Measured on the held-out digits (seed 0, 240
steps): student accuracy 0.097 with the stored outputs read by batch index, 0.918 with the
teacher run on the batch. Fix: run the teacher on the batch inside the loop (under
no_grad), or store its outputs by sample index.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, mlp
from benchmarks.real_bugs._distillation import digits_split, kd_loss, trained_teacher

TITLE = "Fix bug about teacher output"
LINK = "https://github.com/haitongli/knowledge-distillation-pytorch/pull/17"
EXPECTED = ("SOFT_TARGETS_DISAGREE_WITH_LABELS",)
STEPS = 240
TEMPERATURE = 4.0
ALPHA = 0.9
BATCH = 64


def precomputed_teacher_outputs(teacher, x, y):
    """The teacher's logits for one epoch of a shuffling loader, in that loader's order."""
    with torch.no_grad():
        return [teacher(xb) for xb, _ in batches(x, y, len(x) // BATCH, BATCH, seed=7)]


def trained(fixed=False, steps=STEPS, **watch):
    """(monitor, student) after distillation."""
    x, y, _, _ = digits_split()
    teacher = trained_teacher(x, y)
    stored = precomputed_teacher_outputs(teacher, x, y)
    torch.manual_seed(0)
    student = mlp(hidden=32)
    optimizer = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
    with nd.watch(student, optimizer, **watch) as mon:
        for i, (xb, yb) in enumerate(batches(x, y, steps, BATCH)):
            if fixed:
                with torch.no_grad():
                    teacher_logits = teacher(xb)
            else:
                teacher_logits = stored[i % len(stored)]   # BUG: another batch's outputs
            optimizer.zero_grad()
            loss = kd_loss(student(xb), teacher_logits, yb, TEMPERATURE, ALPHA)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, student


def run(fixed=False, steps=STEPS, **watch):
    return trained(fixed, steps, **watch)[0]
