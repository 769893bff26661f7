"""Learning without Forgetting in a class-incremental model whose distillation loss comes
back from its helper re-wrapped as a NEW leaf tensor with ``requires_grad=True``: the
helper computes the soft cross-entropy between the model's old-class outputs and the saved
model's, then returns its value in a fresh tensor (the old ``Variable(loss.data,
requires_grad=True)`` idiom). The number is right and it is added to the loss, but the
graph behind it is gone: backward() stops at the new leaf, no gradient reaches the
network from it, and the run is plain fine-tuning on the new classes. The loss falls, the
new classes are learned as well as ever, and the old classes' outputs drift.

Reported: "The implementation of MultiClassCrossEntropy seems incorrect" -
https://github.com/ngailapdi/LWF/issues/8 (the distillation helper returns
``Variable(outputs.data, requires_grad=True)``: "this new Variable losses the computation
for computing output and optimizing this output will not update the model. As a result,
the dist_loss ... does not affect the results and the performance is same after removing
this term"). Here a 16-unit backbone and a five-way head learn the digits 0-4 (300 Adam
steps, unwatched); the head is then grown to ten outputs (old rows copied) and the digits
5-9 train (400 steps at 1e-2, watched) with cross-entropy over the ten outputs plus twice
the distillation term (temperature 2) on the first five. Fix: return the loss tensor
itself, its graph intact.

Measured (held-out accuracy on the old classes, read from the old five outputs; the new
classes in brackets): seed 0: 0.67 with the bug against 0.93 fixed (0.96 both); seeds
shifted by 1000: 0.79 against 0.92 (0.96 both). Both runs draw TARGET_IDS_OFFSET: the new
task's targets are 5-9 only while the grown head scores ten classes, which is what
class-incremental training does, not an offset (the fixed twin learns both sets).
"""
import copy

import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._cl156 import (NEW_CLASSES, OLD_CLASSES, Net, accuracy, grown_head,
                                         pretrain, rows_of, splits)
from benchmarks.real_bugs._common import batches

TITLE = "The implementation of MultiClassCrossEntropy seems incorrect"
LINK = "https://github.com/ngailapdi/LWF/issues/8"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT",)
STEPS = 400
FIRST_TASK_STEPS = 300
TEMPERATURE, ALPHA = 2.0, 2.0


def distillation(outputs, saved_outputs, fixed):
    """Soft cross-entropy of the old-class outputs against the saved model's."""
    soft = F.softmax(saved_outputs / TEMPERATURE, dim=1)
    loss = -(soft * F.log_softmax(outputs / TEMPERATURE, dim=1)).sum(dim=1).mean()
    if fixed:
        return loss
    return loss.detach().clone().requires_grad_()       # BUG: a new leaf, no graph behind


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_held, y_held = splits()
    old, new = rows_of(y_train, OLD_CLASSES), rows_of(y_train, NEW_CLASSES)
    model = pretrain(Net(hidden=16, outputs=5), x_train[old], y_train[old], FIRST_TASK_STEPS)
    saved = copy.deepcopy(model).eval()
    model.head = grown_head(model.head, 10)                 # units for the new classes
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train[new], y_train[new], steps, seed=1):
            optimizer.zero_grad()
            outputs = model(xb)
            with torch.no_grad():
                saved_outputs = saved(xb)
            loss = F.cross_entropy(outputs, yb) + ALPHA * distillation(
                outputs[:, :len(OLD_CLASSES)], saved_outputs, fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    held_old, held_new = rows_of(y_held, OLD_CLASSES), rows_of(y_held, NEW_CLASSES)
    mon.old_class_accuracy = accuracy(model, x_held[held_old], y_held[held_old],
                                      columns=range(len(OLD_CLASSES)))
    mon.new_class_accuracy = accuracy(model, x_held[held_new], y_held[held_new])
    return mon


if __name__ == "__main__":
    for fixed in (False, True):
        m = run(fixed)
        print("fixed" if fixed else "bug", m.old_class_accuracy, m.new_class_accuracy)
