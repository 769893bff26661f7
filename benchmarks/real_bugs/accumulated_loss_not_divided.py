"""Gradient accumulation that sums the micro-batches' gradients without dividing the loss by
their number: each optimizer step takes 8 times the gradient of the large batch it stands
for, i.e. 8 times the learning rate that was tuned, and training blows up.

Reported: "Gradient Accumulation causes lower lr to be same as non-gradient accumulation" -
https://github.com/fastai/fastai/issues/3023 ("We do not scale the loss by number of
batches to accumulate, so we end up with too large of gradients when doing gradient
accumulation"; in the linked pull request a user saw loss and gradients "suddenly explode
after a while" when accumulating 10 batches, not with 1). Here a digits MLP, SGD with
momentum, 8 micro-batches of 16 per step. Fix: `(loss / ACCUMULATE).backward()`.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Gradient Accumulation causes lower lr to be same as non-gradient accumulation"
LINK = "https://github.com/fastai/fastai/issues/3023"
EXPECTED = ("LR_TOO_HIGH", "EXPLODING_GRADIENTS")
STEPS = 100             # optimizer steps
ACCUMULATE = 8          # micro-batches per optimizer step


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    micro = batches(x, y, steps * ACCUMULATE, batch_size=16)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            for _ in range(ACCUMULATE):
                xb, yb = next(micro)
                loss = loss_fn(model(xb), yb)
                (loss / ACCUMULATE if fixed else loss).backward()   # BUG: not divided
            optimizer.step()
            mon.step(loss)
    return mon
