"""Feature distillation (FitNets-style hints) whose converter - the layer that lifts the
student's narrow hidden features to the teacher's width before the MSE - is built but never
handed to the optimizer. The converter keeps its random initial weights, so the hint loss
asks the student's features to match the teacher's through a fixed random projection:
a target the student cannot reach, and a pull that fights the classification loss.
Everything trains, the loss falls, and nothing errors.

Reported: "feature蒸馏的一些疑惑" (doubts about the feature distillation) -
https://github.com/Syencil/mobile-yolov5-pruning-distillation/issues/75 (the student-side
converters ``S_Converter_*`` of the feature distillation are never added to the optimizer,
"which makes the feature loss hard to bring down"; fix: put the converters' parameters into
the optimizer with the student's). Here a teacher (256-unit MLP) trained first on all
training digits; the student (32 hidden units, Adam 3e-3) trains on 2 labelled rows per
class (cross-entropy) and the hint loss on every training row: MSE between a Linear(32, 256)
converter of its hidden layer and the teacher's last hidden layer, weight 1. Fix: the
converter's parameters in the optimizer.

Measured (held-out accuracy on the last 400 digits): seed 0: 0.582 with the bug against
0.788 fixed; seeds shifted by 1000: 0.598 against 0.798.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._kd155 import F, Student, accuracy, setting, transfer_batches

TITLE = "feature蒸馏的一些疑惑"
LINK = "https://github.com/Syencil/mobile-yolov5-pruning-distillation/issues/75"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS",)
STEPS = 400
HINT_WEIGHT = 1.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test, teacher, labelled = setting()
    teacher_body = teacher[:-1]          # up to the teacher's last hidden layer (256)
    torch.manual_seed(0)
    student = Student()
    converter = nn.Linear(32, 256)
    params = list(student.parameters())
    if fixed:
        params += list(converter.parameters())
    # BUG when not fixed: the converter is left out of the optimizer
    optimizer = torch.optim.Adam(params, lr=3e-3)
    with nd.watch(student, optimizer, **watch) as mon:
        for rows in transfer_batches(len(x), steps):
            with torch.no_grad():
                hint = teacher_body(x[rows])
            hint_loss = F.mse_loss(converter(student.features(x[rows])), hint)
            hard = F.cross_entropy(student(x[labelled]), y[labelled])
            loss = hard + HINT_WEIGHT * hint_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(student, x_test, y_test)
    return mon
