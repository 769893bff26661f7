"""A linear warm-up schedule (a LambdaLR whose factor is step / warmup_steps) that the loop
never steps: the learning rate stays at the schedule's first value, 0, for the whole run,
and Adam moves nothing.

Reported: "where can i assign step in function lr_lambda of Class WramupLinearSchedule?" -
https://github.com/huggingface/transformers/issues/1144 (the warm-up "linearly increases
learning rate from 0 to 1 over warmup_steps training steps"; the answer: "It increases the
step by one every time you call scheduler.step()"). Fix: call scheduler.step() after every
optimizer step.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "where can i assign step in function lr_lambda of Class WramupLinearSchedule?"
LINK = "https://github.com/huggingface/transformers/issues/1144"
EXPECTED = ("LR_TOO_LOW", "PARAMS_NOT_UPDATING")
STEPS = 150
WARMUP, TOTAL = 20, 2000


def warmup_linear(step):
    if step < WARMUP:
        return step / max(1, WARMUP)
    return max(0.0, (TOTAL - step) / max(1, TOTAL - WARMUP))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, warmup_linear)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            if fixed:
                scheduler.step()     # BUG when not fixed: the schedule never advances
            mon.step(loss)
    return mon
