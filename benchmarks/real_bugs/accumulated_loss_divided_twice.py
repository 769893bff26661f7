"""Gradient accumulation whose loss is divided by the number of accumulated batches twice:
once by the model's training step ("the trainer accumulates full-scale gradients") and
once more by the trainer, which already divides the returned loss before ``backward()``.
After N micro-batches the optimizer receives 1/N of the mean gradient - for SGD the
learning rate divided by N - and training crawls. Nothing is logged differently: the
logged loss is the undivided one.

Reported: "Gradient accumulation divides the loss by accumulate_grad_batches twice
(detection/segmentation)" - https://github.com/roboflow/rf-detr/issues/1503 (the module
returns ``loss / accumulate_grad_batches`` while Lightning's
``ClosureResult.from_training_step_output`` divides the returned loss by
``trainer.accumulate_grad_batches`` again: "The two divisions compound", measured as an
accumulated gradient of 1/N of the expected one). rf-detr trains with AdamW, which mostly
hides a constant gradient scale; the harm is that of an optimizer that does not: here a
digits MLP, plain SGD, 8 micro-batches of 16 per step, the trainer's division written out.
Fix: divide once (return the full loss from the training step).

Measured (150 optimizer steps, 297 held-out digits): the bug's held-out accuracy 0.71
and last-20 logged loss 2.06 (the last micro-batch of each step, 2.32 at the start); the
fixed twin's 0.87 and 0.28.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = ("Gradient accumulation divides the loss by accumulate_grad_batches twice "
         "(detection/segmentation)")
LINK = "https://github.com/roboflow/rf-detr/issues/1503"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 150            # optimizer steps
ACCUMULATE = 8         # accumulate_grad_batches
HELD_OUT = 297


def training_step(model, loss_fn, xb, yb, fixed):
    """The module's step: what it returns is what the trainer back-propagates."""
    loss = loss_fn(model(xb), yb)
    if fixed:
        return loss, loss
    return loss / ACCUMULATE, loss          # BUG: the trainer divides again below


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
    loss_fn = nn.CrossEntropyLoss()
    micro = batches(x[:-HELD_OUT], y[:-HELD_OUT], steps * ACCUMULATE, batch_size=16)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            for _ in range(ACCUMULATE):
                xb, yb = next(micro)
                returned, logged = training_step(model, loss_fn, xb, yb, fixed)
                (returned / ACCUMULATE).backward()     # the trainer's own normalisation
            optimizer.step()
            mon.step(logged)
    model.eval()
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
