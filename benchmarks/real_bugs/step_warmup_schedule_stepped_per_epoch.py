"""A warm-up + decay schedule sized in optimizer steps (a transformers
``get_polynomial_decay_schedule_with_warmup``-style LambdaLR: warm-up over W steps, decay
to zero at T steps) but stepped once per EPOCH by the training framework: its factor is
0 at step 0, so the whole first epoch trains at a rate of zero, and after e epochs the
warm-up has reached only e / W of the peak.

Reported: "Learning rate is set to zero for the entirety of the first epoch" -
https://github.com/huggingface/transformers/issues/20916 ("this will produce a LambdaLR
that will return a multiplicative factor of 0 for the entirety of the first epoch ... I
think this is due to a mismatch between pytorch lightning's design and huggingface's.
Huggingface's trainer calls the lr scheduler every step, and pytorch lightning" steps it
per epoch by default). Here a digits MLP under AdamW at a peak of 3e-3, 15 epochs of 20
batches, warm-up 100 steps and decay to zero at 300 steps, stepped after each epoch. Measured
(seed 0) on 500 held-out digits: loss 1.56 and accuracy 79.2% (zero for 20 steps, then at
most 0.15 of the peak), against 0.35 and 89.6% stepped per step. Fix: step the scheduler every
optimizer step (Lightning: ``"interval": "step"``).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Learning rate is set to zero for the entirety of the first epoch"
LINK = "https://github.com/huggingface/transformers/issues/20916"
EXPECTED = ("SCHEDULE_LENGTH_MISMATCH", "LR_TOO_LOW")
STEPS = 300
EPOCH = 20            # batches per epoch
PEAK_LR = 3e-3
WARMUP = 100
HELD_OUT = 500


def polynomial_decay_with_warmup(warmup, total, power=1.0):
    """transformers' get_polynomial_decay_schedule_with_warmup lambda (end rate 0)."""
    def factor(step):
        if step < warmup:
            return step / max(1, warmup)
        if step > total:
            return 0.0
        return ((total - step) / (total - warmup)) ** power
    return factor


def train(fixed=False, steps=STEPS, **watch):
    """The monitor, the model, the held-out (loss, accuracy) and the last rate."""
    torch.manual_seed(0)
    x, y = classification()
    x_val, y_val = x[-HELD_OUT:], y[-HELD_OUT:]
    x, y = x[:-HELD_OUT], y[:-HELD_OUT]
    model = mlp()
    optimizer = torch.optim.AdamW(model.parameters(), lr=PEAK_LR)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, polynomial_decay_with_warmup(WARMUP, steps))
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for i, (xb, yb) in enumerate(batches(x, y, steps)):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if fixed or (i + 1) % EPOCH == 0:    # BUG: per epoch, the schedule counts steps
                scheduler.step()
    with torch.no_grad():
        out = model(x_val)
        held = (loss_fn(out, y_val).item(), (out.argmax(1) == y_val).float().mean().item())
    return mon, model, held, [g["lr"] for g in optimizer.param_groups]


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]
