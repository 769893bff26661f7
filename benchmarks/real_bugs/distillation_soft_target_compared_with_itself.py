"""Knowledge distillation whose soft loss is the KL divergence between the teacher's
softened distribution and... the teacher's softened distribution: the student's logits were
meant to go in one of the two slots and the teacher's were pasted into both. The term is
exactly zero with zero gradient, so the student trains on its hard labels alone - no error,
a loss that still falls, and none of the teacher's knowledge arrives.

Reported: "Small error in distillation code" -
https://github.com/labmlai/annotated_deep_learning_paper_implementations/issues/66 (the
distillation loss computes the student's log-probabilities from ``large_logits`` - the
teacher's - instead of ``output``; the maintainer: "It's not a small bug, it just completely
stops doing the distillation", fixed by using the student's output). Here a teacher (a
256-unit MLP) trained first on all 1397 training digits; the student (32 hidden units, Adam
3e-3) has 2 labelled rows per class (cross-entropy) and the teacher's softened outputs on
every training row (temperature 4, soft weight 1, the T^2 factor): the setting where the
distillation term carries what the student learns beyond its few labels. Fix: the student's
logits in the student's slot.

Measured (held-out accuracy on the last 400 digits): seed 0: 0.702 with the bug (the
student's 20 labels alone) against 0.890 fixed; seeds shifted by 1000: 0.683 against 0.885.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._kd155 import F, Student, accuracy, setting, transfer_batches

TITLE = "Small error in distillation code"
LINK = "https://github.com/labmlai/annotated_deep_learning_paper_implementations/issues/66"
EXPECTED = ("LOSS_TERM_ZERO_WITHOUT_GRADIENT",)
STEPS = 400
TEMPERATURE = 4.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test, teacher, labelled = setting()
    torch.manual_seed(0)
    student = Student()
    optimizer = torch.optim.Adam(student.parameters(), lr=3e-3)
    t = TEMPERATURE
    with nd.watch(student, optimizer, **watch) as mon:
        for rows in transfer_batches(len(x), steps):
            with torch.no_grad():
                teacher_logits = teacher(x[rows])
            output = student(x[rows])
            soft_targets = F.softmax(teacher_logits / t, dim=-1)
            # BUG when not fixed: the teacher's logits in the student's slot
            student_side = output if fixed else teacher_logits
            soft = F.kl_div(F.log_softmax(student_side / t, dim=-1), soft_targets,
                            reduction="batchmean") * t * t
            hard = F.cross_entropy(student(x[labelled]), y[labelled])
            loss = hard + soft
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(student, x_test, y_test)
    return mon
