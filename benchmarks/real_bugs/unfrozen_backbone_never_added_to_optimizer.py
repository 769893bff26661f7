"""Staged fine-tuning that unfreezes the backbone part-way by flipping ``requires_grad`` back
on, while the optimizer was built - as the usual builders build it - from the parameters
that required gradients at the time: the new head only. From the unfreezing step on the
backbone's parameters get gradients, but no optimizer holds them, so ``step()`` never moves
them (and ``zero_grad()`` never clears them). The second stage is the first one again: a
head on frozen features learned for other classes. The loss still falls (the head keeps
training) and nothing errors.

Reported: "How to unfreeze some weight parameters at certain iteration during training?" -
https://github.com/facebookresearch/detectron2/issues/2486 (a model whose box head was
frozen when training started; ``requires_grad = True`` set on the head's parameters at
iteration 500 "does not take effect", judging by the loss. Detectron2's default optimizer
builder, like most, gathers only the parameters with ``requires_grad`` when it is built, so
the unfrozen parameters are in no parameter group). Here a 16-unit backbone learns the
digits 0-4 (300 Adam steps, unwatched); a fresh five-way head for the digits 5-9 trains on
the frozen backbone (Adam 3e-3 over the parameters that require gradients) and the backbone
is unfrozen after 100 of the 400 watched steps. Fix: give the optimizer the unfrozen
parameters when unfreezing them (``add_param_group``, here at 1e-3, a third of the
head's rate), or build the optimizer again.

Measured (held-out accuracy on the digits 5-9): seed 0: 0.65 with the bug against 0.92
fixed; seeds shifted by 1000: 0.72 against 0.92.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._cl156 import (NEW_CLASSES, OLD_CLASSES, Net, accuracy, pretrain,
                                         rows_of, splits)
from benchmarks.real_bugs._common import batches

TITLE = "How to unfreeze some weight parameters at certain iteration during training?"
LINK = "https://github.com/facebookresearch/detectron2/issues/2486"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS",)
STEPS = 400
FIRST_TASK_STEPS = 300
UNFREEZE_AT = 100
HIDDEN = 16


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_held, y_held = splits()
    old, new = rows_of(y_train, OLD_CLASSES), rows_of(y_train, NEW_CLASSES)
    model = pretrain(Net(hidden=HIDDEN, outputs=5), x_train[old], y_train[old],
                     FIRST_TASK_STEPS)
    model.head = nn.Linear(HIDDEN, len(NEW_CLASSES))         # a new head for the new task
    model.backbone.requires_grad_(False)
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad],
                                 lr=3e-3)
    offset = NEW_CLASSES[0]
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x_train[new], y_train[new] - offset, steps,
                                                seed=1)):
            if step == UNFREEZE_AT:
                model.backbone.requires_grad_(True)     # BUG (alone): no optimizer holds it
                if fixed:
                    optimizer.add_param_group({"params": list(model.backbone.parameters()),
                                               "lr": 1e-3})
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    held = rows_of(y_held, NEW_CLASSES)
    mon.held_out_accuracy = accuracy(model, x_held[held], y_held[held], offset=offset)
    return mon


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", run(fixed).held_out_accuracy)
