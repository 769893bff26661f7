"""Gradient accumulation through ``accelerator.accumulate(model)`` whose loss the loop divides
by the accumulation count before ``accelerator.backward(loss)``, which divides it by
``gradient_accumulation_steps`` again (everywhere but DeepSpeed). The accumulated gradient
is the mean gradient over ``steps``: for SGD the learning rate is silently cut by the
accumulation count. The loss still falls, only slowly, and the logged loss (the undivided
one) looks like any slow run.

Reported: "double divide gradient_accumulation_steps" -
https://github.com/huggingface/accelerate/issues/3533 (``Accelerator.backward`` divides
the loss by ``gradient_accumulation_steps`` when the distributed type is not DeepSpeed,
and the caller had already divided it, so the scale is applied twice; the maintainers'
answer in the related threads: ``accelerator.backward`` already does the division, divide
once). Here the digits MLP, SGD with momentum,
``Accelerator(cpu=True, gradient_accumulation_steps=8)``, micro-batches of 8 from a
prepared loader. Fix: pass the undivided loss to ``accelerator.backward``.

Measured (120 optimizer steps, held-out accuracy on 597 digits): seed 0: 0.752 with the
bug against 0.933 for the fixed twin; seeds shifted by 1000: 0.784 against 0.951.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._acc150 import (accuracy, digits_mlp, digits_split,
                                          fresh_accelerator, loader, micro_batches)

TITLE = "double divide gradient_accumulation_steps"
LINK = "https://github.com/huggingface/accelerate/issues/3533"
EXPECTED = ("LR_TOO_LOW",)
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
                if fixed:
                    accelerator.backward(loss)     # it divides by the accumulation count
                else:
                    accelerator.backward(loss / ACCUMULATE)   # BUG: divided a second time
                optimizer.step()
                optimizer.zero_grad()
            if accelerator.sync_gradients:
                mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
