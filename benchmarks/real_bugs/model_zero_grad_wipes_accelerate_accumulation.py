"""Gradient accumulation through ``accelerator.accumulate(model)`` with the gradients cleared
by ``model.zero_grad()`` after every micro-batch instead of ``optimizer.zero_grad()``.
The prepared optimizer's ``step()`` and ``zero_grad()`` do nothing on the micro-batches that
do not sync, which is what makes accumulation work; ``model.zero_grad()`` is the module's
own method and clears the gradients every time. So each real optimizer step applies only
the last micro-batch's gradient, already divided by the accumulation count by
``accelerator.backward``: an eighth of the data at an eighth of the rate. The loss still
falls, slowly, and nothing errors.

Reported: "Worse performance using Accelerate" -
https://github.com/huggingface/accelerate/issues/2341 (a loop ported to Accelerate with
``accelerator.accumulate`` trained worse than the plain PyTorch one; the reporter found the
cause: "the error was ``model.zero_grad()``. It is valid in vanilla Pytorch, but switching
to ``optimizer.zero_grad()`` achieves what I wanted"). Here the digits MLP, SGD with
momentum, ``Accelerator(cpu=True, gradient_accumulation_steps=8)`` and micro-batches of 8
from a prepared loader. Fix: ``optimizer.zero_grad()``.

Measured (120 optimizer steps, held-out accuracy on 597 digits): seed 0: 0.685 with the
bug against 0.933 for the fixed twin; seeds shifted by 1000: 0.699 against 0.951.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._acc150 import (accuracy, digits_mlp, digits_split,
                                          fresh_accelerator, loader, micro_batches)

TITLE = "Worse performance using Accelerate"
LINK = "https://github.com/huggingface/accelerate/issues/2341"
EXPECTED = ("GRADIENTS_DISCARDED",)
STEPS = 120
ACCUMULATE, MICRO, LR = 8, 8, 0.05


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits_split(0)
    accelerator = fresh_accelerator(gradient_accumulation_steps=ACCUMULATE)
    model = digits_mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    model, optimizer, train = accelerator.prepare(model, optimizer, loader(x, y, MICRO))
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in micro_batches(train, steps * ACCUMULATE):
            with accelerator.accumulate(model):
                loss = F.cross_entropy(model(xb), yb)
                accelerator.backward(loss)
                optimizer.step()
                if fixed:
                    optimizer.zero_grad()      # a no-op until the accumulation syncs
                else:
                    model.zero_grad()          # BUG: clears every micro-batch's gradient
            if accelerator.sync_gradients:
                mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
