"""Gradient accumulation counted over the whole run (step when ni - last_opt_step >=
accumulate, ni the global batch index) with an extra optimizer.zero_grad() at the start of
every epoch: the batches accumulated since the epoch's last optimizer step are thrown away
before anything steps with them, and the first step of the next epoch sums fewer batches
than accumulate. With the epoch's batch count not a multiple of accumulate, up to half of
the data's gradients never reach the weights.

Reported: "fix double zero_grad call messing up gradient accumulation" -
https://github.com/ultralytics/ultralytics/pull/11217 ("`optimizer.zero_grad` is called both
at the start of an epoch and in `self.optimizer_step`. Since `optimizer.step` is only called
when `ni - last_opt_step >= self.accumulate`, the `optimizer.zero_grad` at the start of the
epoch will throw away all gradients of batches at the end of each epoch if
`self.accumulate` was not reached"). Here a digits MLP trained as the report's trainer does:
SGD with momentum on a loss summed over the batch (its size sets the step), epochs of 10
batches of 8 drawn from the shuffled digits, accumulate 8 (a nominal batch of 64). Fix:
zero the gradients only after each optimizer step.

Why watch misses it: GRADIENTS_DISCARDED compares, on the recorded steps, what .grad holds
with what the step's backward passes delivered; the report's optimizer_step() zeroes the
gradients right after optimizer.step(), before the loop reaches watch's step(), so on every
recorded step .grad is already empty when it is read and nothing is compared (the same loop
calling step() before zero_grad() is named GRADIENTS_DISCARDED). Reading .grad at the
watched optimizer's step instead belongs to the monitor's record, not to a new observer.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "fix double zero_grad call messing up gradient accumulation"
LINK = "https://github.com/ultralytics/ultralytics/pull/11217"
EXPECTED = ("GRADIENTS_DISCARDED",)
STEPS = 1200         # batches
EPOCH = 10           # batches per epoch
ACCUMULATE = 8
BATCH = 8


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=2e-3, momentum=0.9, nesterov=True)
    loss_fn = nn.CrossEntropyLoss(reduction="sum")
    data = batches(x, y, steps, batch_size=BATCH)
    last_opt_step, ni = -1, 0
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps // EPOCH):
            if not fixed:
                optimizer.zero_grad()      # BUG: drops what the epoch's tail accumulated
            for _, (xb, yb) in zip(range(EPOCH), data):
                loss = loss_fn(model(xb), yb)
                loss.backward()
                if ni - last_opt_step >= ACCUMULATE:
                    optimizer.step()
                    optimizer.zero_grad()
                    last_opt_step = ni
                    mon.step(loss / BATCH)
                ni += 1
    return mon
