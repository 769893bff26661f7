"""Gradient accumulation over iter_size micro-batches with a second optimizer.step() left
outside the accumulation's if: the optimizer steps on every micro-batch with the partly
accumulated (unscaled, never zeroed in between) gradients, and once more at the boundary.

Reported: "Misplaced optimizer step" - https://github.com/mzolfaghari/ECO-pytorch/pull/1
("fixes duplicate optimizer step when using iter_size > 1. Original code performed step even
outside the iter_size 'if' clause. Accuracy improves for iter_size > 1"). Here a digits MLP,
SGD with momentum, iter_size 4. Fix: step only inside the if.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Misplaced optimizer step"
LINK = "https://github.com/mzolfaghari/ECO-pytorch/pull/1"
EXPECTED = ("REPEATED_OPTIMIZER_STEPS",)
STEPS = 100           # accumulated optimizer steps (iter_size micro-batches each)
ITER_SIZE = 4


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        optimizer.zero_grad()
        for i, (xb, yb) in enumerate(batches(x, y, steps * ITER_SIZE, batch_size=16)):
            loss = loss_fn(model(xb), yb)
            loss.backward()
            if (i + 1) % ITER_SIZE == 0:
                for p in model.parameters():
                    p.grad /= ITER_SIZE
                optimizer.step()
                optimizer.zero_grad()
                mon.step(loss)
            if not fixed:
                optimizer.step()      # BUG: a second step, on every micro-batch
    return mon
