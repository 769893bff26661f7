"""A learning-rate schedule built for the run's optimizer steps, stepped inside
``with accelerator.accumulate(model):`` on every micro-batch, by a scheduler that never went
through ``accelerator.prepare``. The prepared optimizer's ``step()`` does nothing until the
accumulation syncs, but a bare scheduler advances every time it is called: with 4
micro-batches per step the warm-up ends after 3 optimizer steps instead of 12 and the
linear decay reaches zero a quarter of the way through the run. The last three quarters
train at a rate of zero; the loss simply stops falling.

Reported: "Scheduler always steps when training with gradient accumulation" -
https://github.com/huggingface/accelerate/issues/963 (with gradient accumulation the
learning rate changed on every micro-batch, "even when ``optimiser.step`` was not
performed", in a loop calling ``lr_scheduler.step()`` inside ``accelerator.accumulate``;
fixed in https://github.com/huggingface/accelerate/pull/999: the ``AcceleratedScheduler``
that ``prepare`` returns steps only when the optimizer did). Accelerate 1.16 has that fix,
so here the schedule is left out of ``prepare``: a bare scheduler stepped per micro-batch
is what the report's prepared one was. The digits MLP, SGD with momentum at 0.1, a linear
warm-up over 12 steps and a linear decay to zero at 120 (the schedule of the
``no_trainer`` examples; the report's cosine, written the transformers way, rises again
past its end, and on this run did no harm: 0.935 against 0.925 held-out accuracy),
``Accelerator(cpu=True, gradient_accumulation_steps=4)``, micro-batches of 16. Fix: pass
the scheduler to ``accelerator.prepare``.

Measured (120 optimizer steps, held-out accuracy on 597 digits): seed 0: 0.737 with the
bug against 0.926 for the fixed twin; seeds shifted by 1000: 0.814 against 0.960.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._acc150 import (accuracy, digits_mlp, digits_split,
                                          fresh_accelerator, loader, micro_batches)

TITLE = "Scheduler always steps when training with gradient accumulation"
LINK = "https://github.com/huggingface/accelerate/issues/963"
EXPECTED = ("LR_AT_ZERO",)
STEPS = 120
ACCUMULATE, MICRO, PEAK_LR, WARMUP = 4, 16, 0.1, 12


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits_split(0)
    accelerator = fresh_accelerator(gradient_accumulation_steps=ACCUMULATE)
    model = digits_mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=PEAK_LR, momentum=0.9)

    def warm_then_decay(step):          # planned in optimizer steps
        if step < WARMUP:
            return step / WARMUP
        return max(0.0, (steps - step) / (steps - WARMUP))
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, warm_then_decay)
    if fixed:
        model, optimizer, train, scheduler = accelerator.prepare(
            model, optimizer, loader(x, y, MICRO), scheduler)
    else:      # BUG: the scheduler is not prepared, so it steps on every micro-batch
        model, optimizer, train = accelerator.prepare(model, optimizer, loader(x, y, MICRO))
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in micro_batches(train, steps * ACCUMULATE):
            with accelerator.accumulate(model):
                loss = F.cross_entropy(model(xb), yb)
                accelerator.backward(loss)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
            if accelerator.sync_gradients:
                mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
