"""A warm-up + cosine LambdaLR stepped once per optimizer step but given the number of
EPOCHS as its horizon: past the horizon the cosine keeps turning (the lambda's progress
runs past 1, and cos() is periodic), so the rate falls to zero and climbs back to its peak
again and again, and the run ends wherever the last period leaves it.

Reported: "Fix per-iteration LR schedulers being given an epoch count as their horizon" -
https://github.com/ScrollPrize/villa/pull/1495 (the scheduler got ``max_steps=max_epoch``
while stepped per optimizer step: "decays to zero 140 times over the run; returns above 90%
of peak 139 times ... ends at 75% of peak"; the fix multiplies the horizon by the steps
per epoch). Here a digits MLP under SGD with momentum 0.9 and a peak rate of 0.5, 15
epochs of 20 batches, a diffusers-style cosine-with-warm-up lambda (warm-up 3 steps), its
horizon 15 (epochs) instead of 300 (steps). Measured (seed 0) on 500 held-out digits: loss
0.37 and accuracy 91.2% (the rate went to zero and back every 24 steps, 12 times), against
0.20 and 95.0% with the horizon at 300 steps. Fix: num_training_steps = epochs *
steps_per_epoch.
"""
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Fix per-iteration LR schedulers being given an epoch count as their horizon"
LINK = "https://github.com/ScrollPrize/villa/pull/1495"
EXPECTED = ("SCHEDULE_LENGTH_MISMATCH",)
STEPS = 300
EPOCH = 20            # batches per epoch
PEAK_LR = 0.5
WARMUP = 3
HELD_OUT = 500


def cosine_with_warmup(warmup, horizon, num_cycles=0.5):
    """diffusers' get_cosine_schedule_with_warmup lambda."""
    def factor(step):
        if step < warmup:
            return step / max(1, warmup)
        progress = (step - warmup) / max(1, horizon - warmup)
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * num_cycles * 2.0 * progress)))
    return factor


def train(fixed=False, steps=STEPS, **watch):
    """The monitor, the model, the held-out (loss, accuracy) and the last rate."""
    torch.manual_seed(0)
    x, y = classification()
    x_val, y_val = x[-HELD_OUT:], y[-HELD_OUT:]
    x, y = x[:-HELD_OUT], y[:-HELD_OUT]
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=PEAK_LR, momentum=0.9)
    epochs = max(1, steps // EPOCH)
    horizon = epochs * EPOCH if fixed else epochs    # BUG: epochs, the scheduler counts steps
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, cosine_with_warmup(WARMUP, horizon))
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            scheduler.step()
            mon.step(loss)
    with torch.no_grad():
        out = model(x_val)
        held = (loss_fn(out, y_val).item(), (out.argmax(1) == y_val).float().mean().item())
    return mon, model, held, [g["lr"] for g in optimizer.param_groups]


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]
