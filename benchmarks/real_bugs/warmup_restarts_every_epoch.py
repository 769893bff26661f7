"""A linear warm-up driven by the step counter inside the epoch: the learning rate falls
back to the warm-up's start at every epoch, and with epochs shorter than the warm-up it
never gets near the rate it was meant to reach.

Reported: "bug: fix warmup LR" - https://github.com/Vision-CAIR/MiniGPT-4/pull/263 ("LR
resets every epoch during warmup to warmup_start_lr because it uses inner epoch step
counter. We need to use total_cur_step"). Here the warm-up lasts 400 steps and an epoch
25, so Adam trains at 1/16 of its rate at best. Fix: the warm-up reads the global step.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "bug: fix warmup LR"
LINK = "https://github.com/Vision-CAIR/MiniGPT-4/pull/263"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 150
EPOCH = 25
WARMUP = 400
PEAK, START = 3e-3, 1e-6
WARMUP_FIXED = 40        # the fixed twin: the same schedule read at the global step


def warmup_lr(step, length):
    return START + (PEAK - START) * min(1.0, (step + 1) / length)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=START)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps)):
            inner = step % EPOCH                       # the step counter inside the epoch
            lr = warmup_lr(step, WARMUP_FIXED) if fixed else warmup_lr(inner, WARMUP)  # BUG
            for group in optimizer.param_groups:
                group["lr"] = lr
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
