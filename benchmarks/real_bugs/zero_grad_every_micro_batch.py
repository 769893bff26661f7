"""Gradient accumulation whose optimizer.zero_grad() sits inside the micro-batch loop: each
micro-batch clears the gradients of the ones before it, so every optimizer step uses the
last micro-batch alone (divided by the accumulation count): a quarter of the data and a
quarter of the intended step size.

Reported: "train.py: zero_grad is called per microbatch, breaking gradient accumulation" -
https://github.com/bytetriper/RAE/issues/67 ("optimizer.zero_grad(set_to_none=True) is
called inside the inner loop, so gradients are cleared every microbatch instead of being
accumulated"). Here a digits MLP, 4 micro-batches of 16 per optimizer step, each loss
divided by 4. Fix: zero the gradients once per optimizer step, before its micro-batches.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "train.py: zero_grad is called per microbatch, breaking gradient accumulation"
LINK = "https://github.com/bytetriper/RAE/issues/67"
EXPECTED = ("GRADIENTS_DISCARDED",)
STEPS = 120             # optimizer steps
ACCUMULATE = 4          # micro-batches per optimizer step


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    micro = batches(x, y, steps * ACCUMULATE, batch_size=16)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            if fixed:
                optimizer.zero_grad(set_to_none=True)
            for _ in range(ACCUMULATE):
                if not fixed:
                    optimizer.zero_grad(set_to_none=True)   # BUG: clears the micro-batches before
                xb, yb = next(micro)
                loss = loss_fn(model(xb), yb)
                (loss / ACCUMULATE).backward()
            optimizer.step()
            mon.step(loss)
    return mon
