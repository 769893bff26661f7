"""A model trained on a weighted sum of several losses - an image-similarity term, a label term
and a regulariser on the model's output - computes its label loss and then adds it to the
total only when the IMAGE loss's weight is positive (a typo in the condition). Configured for
weak supervision (image weight 0, label weight 1), the label loss is computed, logged nowhere
and never added: the total is the regulariser alone, which the model satisfies at once by
predicting nothing, and the 'overall loss remains zeros' while nothing is learned.

Reported: "Label loss is not being used" - https://github.com/DeepRegNet/DeepReg/issues/624
("Train with label+regularisor losses, the label loss is not in print and overall loss remains
zeros ... i believe it is a problem by setting image loss weight to zero"; a maintainer: "OK,
i confirmed it is a bug, due to a typo"). Here a digits classifier whose loss is configured
as DeepReg's weakly-supervised demos are (image weight 0, label weight 1, regulariser 0.5 on
the squared outputs); the typo gates the label term on the image weight. Fix: gate each
term on its own weight.

Measured (200 steps, 297 held-out digits): the bug's loss starts at 0.006 and ends at 0.0002
(the regulariser alone), its held-out accuracy 0.08 (chance); the fixed twin's 0.92.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Label loss is not being used"
LINK = "https://github.com/DeepRegNet/DeepReg/issues/624"
EXPECTED = ("LOSSES_NOT_BACKPROPAGATED",)
STEPS = 200
HELD_OUT = 297
WEIGHTS = {"image": 0.0, "label": 1.0, "regularization": 0.5}   # weakly supervised


def total_loss(logits, labels, fixed):
    loss = WEIGHTS["regularization"] * logits.pow(2).mean()
    if WEIGHTS["image"] > 0:
        loss = loss + WEIGHTS["image"] * 0.0          # no image-similarity term here
    label_loss = F.cross_entropy(logits, labels)
    gate = WEIGHTS["label"] if fixed else WEIGHTS["image"]   # BUG: the image weight's typo
    if gate > 0:
        loss = loss + WEIGHTS["label"] * label_loss
    return loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            optimizer.zero_grad()
            loss = total_loss(model(xb), yb, fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
