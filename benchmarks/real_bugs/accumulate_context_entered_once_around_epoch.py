"""``with accelerator.accumulate(model):`` written around the whole loop over the loader
instead of inside it. Accelerate decides whether this is a step that syncs (and so whether
the prepared optimizer's ``step()`` and ``zero_grad()`` do anything) once, when the
context is entered: entered once an epoch, it counts epochs, not micro-batches. With 4
accumulation steps, three epochs in four take no optimizer step at all while their
gradients pile up, and the fourth steps on every micro-batch (its loss still divided by
4) - the first time with the gradient of three epochs and more. Nothing errors; the loss wanders and training is poor.

Reported: "Fix example in accumulate method documentation" -
https://github.com/huggingface/accelerate/pull/1211 (the docstring of ``accumulate`` put
the context manager around the ``for`` loop; "The _do_sync method is called only when the
context manager is entered, so it needs to go inside the loop. (I was wondering why my
model wasn't converging well!)"; merged). Here the digits MLP, SGD with momentum,
``Accelerator(cpu=True, gradient_accumulation_steps=4)``, micro-batches of 16 from a
prepared loader, 1,200 rows, 75 micro-batches an epoch. Fix: enter the context once per
micro-batch, inside the loop.

Measured (the same 480 micro-batches, 6.4 epochs; held-out accuracy on 597 digits): the
bug run takes 75 optimizer steps, all in epoch 4, the twin 121. Seed 0: 0.836 with the
bug against 0.933 for the fixed twin; seeds shifted by 1000: 0.843 against 0.951.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._acc150 import (accuracy, digits_mlp, digits_split,
                                          fresh_accelerator, loader)

TITLE = "Fix example in accumulate method documentation"
LINK = "https://github.com/huggingface/accelerate/pull/1211"
EXPECTED = ("GRADIENTS_ACCUMULATING",)
STEPS = 120           # optimizer steps of the fixed loop (480 micro-batches)
ACCUMULATE, MICRO, LR = 4, 16, 0.05


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits_split(0)
    accelerator = fresh_accelerator(gradient_accumulation_steps=ACCUMULATE)
    model = digits_mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    model, optimizer, train = accelerator.prepare(model, optimizer, loader(x, y, MICRO))
    budget = steps * ACCUMULATE

    def train_on(xb, yb):
        loss = F.cross_entropy(model(xb), yb)
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
        if accelerator.sync_gradients:
            mon.step(loss)

    with nd.watch(model, optimizer, **watch) as mon:
        while budget > 0:
            if fixed:
                for xb, yb in train:
                    with accelerator.accumulate(model):     # once per micro-batch
                        train_on(xb, yb)
                    budget -= 1
                    if budget == 0:
                        break
            else:
                with accelerator.accumulate(model):         # BUG: once per epoch
                    for xb, yb in train:
                        train_on(xb, yb)
                        budget -= 1
                        if budget == 0:
                            break
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
