"""Gradient accumulation over 4 micro-batches with the learning-rate schedule planned in
optimizer steps, but ``scheduler.step()`` called on every micro-batch: the schedule runs 4
times too fast. Its warm-up ends after a quarter of the planned steps and its linear decay
reaches zero a quarter of the way through training; the other three quarters of the
optimizer steps are taken at a rate of zero.

Reported: "fix(trainer): step LR scheduler only on actual optimizer updates" -
https://github.com/starVLA/starVLA/pull/210 ("When using gradient_accumulation_steps > 1,
lr_scheduler.step() is called on every micro-batch ... This causes the LR scheduler to
advance gradient_accumulation_steps times faster than intended ... LR decays faster than
configured"; merged). Here a digits MLP under AdamW, 150 optimizer steps of 4 micro-batches
of 16, a linear warm-up over 15 steps and a linear decay to zero at 150.
Measured on 500 held-out digits: loss 0.81, accuracy 84.6% with the schedule stepped per
micro-batch, against loss 0.33 and 89.6% stepped per optimizer step.
Fix: step the scheduler where the optimizer steps.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "fix(trainer): step LR scheduler only on actual optimizer updates"
LINK = "https://github.com/starVLA/starVLA/pull/210"
EXPECTED = ("LR_AT_ZERO",)
STEPS = 150           # optimizer steps
ACCUMULATE = 4        # micro-batches per optimizer step
PEAK_LR = 1e-2
WARMUP = 15
HELD_OUT = 500


def linear_with_warmup(total):
    def factor(step):
        if step < WARMUP:
            return (step + 1) / WARMUP
        return max(0.0, (total - step) / (total - WARMUP))
    return factor


def train(fixed=False, steps=STEPS, **watch):
    """The monitor and the trained model."""
    torch.manual_seed(0)
    x, y = classification()
    x, y = x[:-HELD_OUT], y[:-HELD_OUT]
    model = mlp()
    optimizer = torch.optim.AdamW(model.parameters(), lr=PEAK_LR)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, linear_with_warmup(steps))
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        optimizer.zero_grad()
        for i, (xb, yb) in enumerate(batches(x, y, steps * ACCUMULATE, batch_size=16)):
            loss = loss_fn(model(xb), yb) / ACCUMULATE
            loss.backward()
            if (i + 1) % ACCUMULATE == 0:
                optimizer.step()
                optimizer.zero_grad()
                if fixed:
                    scheduler.step()
                mon.step(loss)
            if not fixed:
                scheduler.step()             # BUG: every micro-batch, not every update
    return mon, model


def evaluate(model):
    x, y = classification()
    with torch.no_grad():
        out = model(x[-HELD_OUT:])
    loss = nn.functional.cross_entropy(out, y[-HELD_OUT:]).item()
    accuracy = (out.argmax(1) == y[-HELD_OUT:]).float().mean().item()
    return "held-out loss %.3f accuracy %.4f" % (loss, accuracy)


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]
