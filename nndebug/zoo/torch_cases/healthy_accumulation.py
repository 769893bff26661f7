"""Healthy: gradients accumulated on purpose over 4 micro-batches per optimizer step."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/healthy-accumulation"
FRAMEWORK = "torch"
EXPECTED = None
DESCRIPTION = ("Gradient accumulation done right: zero_grad once per optimizer step, four "
               "backward passes of quarter-size batches, then one step. Not a missing "
               "zero_grad, and watch() must not say it is.")
FIX = "Nothing to fix."
STEPS = 80
MICRO_BATCHES = 4


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    stream = batches(x, y, steps * MICRO_BATCHES, batch_size=16)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            total = 0.0
            for _ in range(MICRO_BATCHES):
                xb, yb = next(stream)
                loss = loss_fn(model(xb), yb) / MICRO_BATCHES
                loss.backward()
                total += loss.detach()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
            optimizer.step()
            mon.step(total)
    return mon
