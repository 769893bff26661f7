"""A linear-decay scheduler built for the run's optimizer steps but stepped once per process
(the training script's accelerate wrapper steps it num_processes times per optimizer step):
the rate reaches zero halfway through the run, and the second half trains with lr = 0.

Reported: "Scheduler num_warmup_steps and num_training_steps" -
https://github.com/huggingface/transformers/issues/26827 ("I find that the learning rate is
0 after half of args.max_train_steps ... the problem is caused from multi GPU settings and
the scheduler does not consider it", two GPUs). Here the digits MLP with SGD and a linear
decay over the run's steps, stepped twice per optimizer step as with two processes. Fix:
build the schedule for num_processes x the steps (or step it once per optimizer step).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Scheduler num_warmup_steps and num_training_steps"
LINK = "https://github.com/huggingface/transformers/issues/26827"
EXPECTED = ("LR_AT_ZERO", "LR_TOO_LOW")
STEPS = 300
PROCESSES = 2
LR = 0.02


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    # the schedule knows the optimizer steps; the loop steps it once per process
    decay = lambda step: max(0.0, 1.0 - step / steps)        # noqa: E731
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, decay)
    calls = 1 if fixed else PROCESSES                 # BUG: stepped num_processes times
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            for _ in range(calls):
                scheduler.step()
            mon.step(loss)
    return mon
