"""Gradient accumulation that steps when (step + 1) % accumulation == 0, with `step` the
batch index inside the epoch: when an epoch has fewer batches than the accumulation count,
the condition is never true, the optimizer never steps, and the gradients pile up.

Reported: "No optimizer steps when gradient_accumulation_steps smaller than epoch_iterator
length" - https://github.com/huggingface/transformers/issues/2995 ("If the latter is small,
then we would never enter the if condition and never call optimizer.step()"). Here a digits
MLP, 10 batches per epoch, 16 accumulated. Fix: also step on the last batch of an epoch.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = ("No optimizer steps when gradient_accumulation_steps smaller than epoch_iterator "
         "length")
LINK = "https://github.com/huggingface/transformers/issues/2995"
EXPECTED = ("NO_OPTIMIZER_STEP", "PARAMS_NOT_UPDATING", "GRADIENTS_ACCUMULATING")
STEPS = 600          # batches (60 optimizer steps when fixed)
EPOCH = 10           # batches per epoch (a small fine-tuning set)
ACCUMULATE = 16


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    data = batches(x, y, steps, batch_size=16)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps // EPOCH):
            for step, (xb, yb) in zip(range(EPOCH), data):
                loss = loss_fn(model(xb), yb)
                (loss / ACCUMULATE).backward()
                last = step + 1 == EPOCH
                if (step + 1) % ACCUMULATE == 0 or (fixed and last):   # BUG: never true
                    optimizer.step()
                    optimizer.zero_grad()
                    mon.step(loss)           # one record per optimizer step, as documented
    return mon
