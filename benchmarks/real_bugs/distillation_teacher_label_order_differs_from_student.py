"""Distillation from a teacher whose output classes are numbered in a different order from
the student's. The teacher was fine-tuned with its own label list (its config's id-to-label
map, here the class names in alphabetical order: "eight", "five", "four", ...), the student
builds its label list from the dataset (0, 1, 2, ...), and the soft loss compares the two
distributions column by column: every soft target tells the student that the image is the
class sitting at the teacher's index. Shapes match, the KL falls, no error; the student is
taught a permuted labelling on every transfer row, against its few true labels.

Reported: "[Fix] Fix divergence between student and teacher label mapping" -
https://github.com/neuralmagic/sparseml/pull/1399 (distilling a token-classification
student from a teacher whose label mapping differed from the student's did not converge;
the fix maps the student's labels onto the teacher's, after which the rerun converged to
an F1 of 0.92; follow-up #1414 "label_list not being set ... if distillation teacher and
student labels do not match"). Here a teacher (a 256-unit MLP) trained first on all 1397
training digits under alphabetical class ids; the student (32 hidden units, Adam 3e-3) has
2 labelled rows per class (cross-entropy, numeric ids) and the teacher's softened outputs
on every training row (temperature 2, soft weight 1, the T^2 factor). Fix: the teacher's
columns reordered into the student's label order before the KL.

Measured (held-out accuracy on the last 400 digits): seed 0: 0.110 with the bug against
0.887 fixed; seeds shifted by 1000: 0.102 against 0.882.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._distillation import digits_split, trained_teacher
from benchmarks.real_bugs._kd155 import (F, Student, accuracy, labelled_rows,
                                         transfer_batches)

TITLE = "[Fix] Fix divergence between student and teacher label mapping"
LINK = "https://github.com/neuralmagic/sparseml/pull/1399"
EXPECTED = ("TEACHER_STUDENT_CLASS_ORDER_MISMATCH", "SOFT_TARGETS_DISAGREE_WITH_LABELS")
STEPS = 400
TEMPERATURE = 2.0
NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
TEACHER_LABELS = sorted(NAMES)                     # the teacher config's id -> label list
TEACHER_ID = torch.tensor([TEACHER_LABELS.index(n) for n in NAMES])   # digit -> teacher id


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    teacher = trained_teacher(x, TEACHER_ID[y])    # fine-tuned under its own class ids
    labelled = labelled_rows(y)
    torch.manual_seed(0)
    student = Student()
    optimizer = torch.optim.Adam(student.parameters(), lr=3e-3)
    t = TEMPERATURE
    with nd.watch(student, optimizer, **watch) as mon:
        for rows in transfer_batches(len(x), steps):
            with torch.no_grad():
                teacher_logits = teacher(x[rows])
                if fixed:    # the teacher's columns in the student's label order
                    teacher_logits = teacher_logits[:, TEACHER_ID]
                # BUG when not fixed: column j is the teacher's class j, not digit j
                soft_targets = F.softmax(teacher_logits / t, dim=-1)
            soft = F.kl_div(F.log_softmax(student(x[rows]) / t, dim=-1), soft_targets,
                            reduction="batchmean") * t * t
            hard = F.cross_entropy(student(x[labelled]), y[labelled])
            loss = hard + soft
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(student, x_test, y_test)
    return mon
