"""Knowledge distillation whose teacher is loaded and run under ``no_grad`` but never put in
eval mode: a module is in training mode when built, so the teacher's dropout stays on and
every soft target is the answer of a random half of the teacher's units. The student is
pulled towards a noisy, blunted copy of the teacher's distribution.

Reported: "Is there a bug with the teacher model?" - https://github.com/yxuansu/TaCL/issues/11
("the teacher model does not perform the eval() operation, so whether the same input will
get different results due to dropout"; the author: "I think you are right, we might need to
add eval() in the teacher model to disable the dropout"). The same question on another
repository: vrvlive/knowlege-distillation#2. Here the digits (the last 400 held out), a
256-wide teacher trained first with dropout 0.5, a 32-wide student distilled with alpha 0.9
and T 4 by SGD. Measured on the held-out digits (seed 0, 240 steps): the student ends 60%
further from the teacher it should copy (KL(teacher || student) at T 4: 0.0154 against
0.0097 distilled from the teacher in eval mode) and a little less accurate (0.908 against
0.913; the teacher's own accuracy is 0.928): a mild harm, as the report's author expected.
Fix: ``teacher.eval()`` before distilling.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, mlp
from benchmarks.real_bugs._distillation import digits_split, kd_loss, trained_teacher

TITLE = "Is there a bug with the teacher model?"
LINK = "https://github.com/yxuansu/TaCL/issues/11"
EXPECTED = ("TEACHER_IN_TRAIN_MODE",)
STEPS = 240
TEMPERATURE = 4.0
ALPHA = 0.9
DROPOUT = 0.5


def trained(fixed=False, steps=STEPS, **watch):
    """(monitor, student) after distillation."""
    x, y, _, _ = digits_split()
    teacher = trained_teacher(x, y, dropout=DROPOUT)
    teacher.train(not fixed)       # BUG when not fixed: as loaded, in training mode
    torch.manual_seed(0)
    student = mlp(hidden=32)
    optimizer = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
    with nd.watch(student, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            with torch.no_grad():
                teacher_logits = teacher(xb)
            optimizer.zero_grad()
            loss = kd_loss(student(xb), teacher_logits, yb, TEMPERATURE, ALPHA)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, student


def run(fixed=False, steps=STEPS, **watch):
    return trained(fixed, steps, **watch)[0]
