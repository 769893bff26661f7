"""Knowledge distillation whose optimizer is built over the student's AND the teacher's
parameters, with the teacher left trainable: the distillation term's gradient reaches the
teacher too (its logits are not computed under ``no_grad``), so every step moves the
teacher towards the student as much as the student towards the teacher. The soft targets
the student copies drift from a trained teacher's answers to a compromise with an untrained
student: the teacher forgets, and the student has less to learn from.

Reported: "优化器里边没必要添加教师模型的参数吧？build_optimizer(model, model1, ...)" (there is no
need to add the teacher's parameters to the optimizer?) -
https://github.com/huangzongmou/yolov8_Distillation/issues/16 (the reporter: the optimizer
was changed to take the teacher's parameters, the teacher's ``requires_grad`` stays True and
its ``.eval()`` does not keep its weights constant, "so the teacher and the student are
trained jointly, not the usual frozen teacher"; another user: "the teacher should not take
part in the update"). Here the digits (the last 400 held out), a 256-wide teacher trained
first, a 32-wide student distilled at T 4, alpha 0.9, Adam.

Measured (seed 0, 400 steps, held-out digits): the student's
held-out accuracy 0.780 with the teacher in its optimizer, 0.842 with a frozen teacher; the
teacher itself fell from 0.923 (trained) to 0.770 by the end of the distillation.
Fix: build the optimizer over ``student.parameters()`` only, freeze the teacher
(``requires_grad_(False)``) and run it under ``torch.no_grad()``.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, mlp
from benchmarks.real_bugs._distillation import accuracy, digits_split, kd_loss, trained_teacher

TITLE = "优化器里边没必要添加教师模型的参数吧？build_optimizer(model,model1, name='Adam', lr=0.001, momentum=0.9, decay=1e-5):"
LINK = "https://github.com/huangzongmou/yolov8_Distillation/issues/16"
EXPECTED = ("TEACHER_UPDATED_BY_OPTIMIZER",)
STEPS = 300
TEMPERATURE = 4.0
ALPHA = 0.9


def trained(fixed=False, steps=STEPS, **watch):
    """(monitor, student, teacher) after distillation."""
    x, y, _, _ = digits_split()
    teacher = trained_teacher(x, y)
    torch.manual_seed(0)
    student = mlp(hidden=32)
    if fixed:
        params = list(student.parameters())
    else:
        for p in teacher.parameters():     # BUG: the teacher made trainable and handed to
            p.requires_grad_(True)         # the student's optimizer
        params = list(student.parameters()) + list(teacher.parameters())
    optimizer = torch.optim.Adam(params, lr=1e-3)
    with nd.watch(student, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            if fixed:
                with torch.no_grad():
                    teacher_logits = teacher(xb)
            else:
                teacher_logits = teacher(xb)
            loss = kd_loss(student(xb), teacher_logits, yb, TEMPERATURE, ALPHA)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, student, teacher


def run(fixed=False, steps=STEPS, **watch):
    return trained(fixed, steps, **watch)[0]


def measured(fixed):
    """(student's held-out accuracy, teacher's held-out accuracy after distillation)."""
    _, student, teacher = trained(fixed)
    _, _, x_test, y_test = digits_split()
    return round(accuracy(student, x_test, y_test), 3), round(accuracy(teacher, x_test, y_test), 3)


if __name__ == "__main__":
    torch.set_num_threads(1)
    for fixed in (False, True):
        print("fixed" if fixed else "bug", measured(fixed))
