"""Two fits in a row on one trainer - the head alone with the backbone frozen, then the
whole network unfrozen - with the learning-rate scheduler built once, for the first fit.
The second fit picks the schedule up where the first left it: at the end, where a decay
has brought the rate to zero. The unfrozen backbone then gets its gradients and no step;
the second fit's loss stays where the first left it, and nothing warns.

Reported: "Trainer.fit more than once" - https://github.com/airctic/icevision/issues/34
(the intended workflow is ``model.freeze_to(-1); trainer.fit(...); model.freeze_to(0);
trainer.fit(...)``; "Trainer already correctly resumes training, but we need to reset the
lr_scheduler" for the second fit; solved by resetting the schedule when a fit starts).
Here a digits MLP (64-32-10, SGD with momentum, lr 0.1): the first fit trains the output
layer for 150 steps with the hidden layer frozen at its initial weights, the rate decaying
linearly to zero over those 150 steps; the second fit unfreezes the hidden layer and trains
150 more steps with the same scheduler object, which stays at zero. Fix: a fresh schedule
(the same linear decay over its 150 steps) when the second fit starts.

Measured (held-out accuracy on 397 digits): seed 0, 0.81 for the bug against 0.97 for the
fixed twin; seeds shifted by 1000, 0.76 against 0.95 (the bug's network is the first fit's:
a trained head on the random hidden layer).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, mlp
from benchmarks.real_bugs._nb147 import accuracy, split

TITLE = "Trainer.fit more than once"
LINK = "https://github.com/airctic/icevision/issues/34"
EXPECTED = ("LR_AT_ZERO",)
STEPS = 300                 # two fits of half each
LR = 0.1


def linear_decay(total):
    return lambda step: max(0.0, 1 - step / total)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split(0)
    model = mlp(hidden=32)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    per_fit = steps // 2
    data = batches(x, y, 2 * per_fit)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, linear_decay(per_fit))
    with nd.watch(model, optimizer, **watch) as mon:
        for fit in range(2):
            for p in model[0].parameters():     # freeze_to(-1), then freeze_to(0)
                p.requires_grad_(fit == 1)
            if fit == 1 and fixed:
                for group in optimizer.param_groups:
                    group["lr"] = LR
                scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer,
                                                              linear_decay(per_fit))
            # BUG (fixed=False): the first fit's scheduler, already at its end, carries on
            for _ in range(per_fit):
                xb, yb = next(data)
                optimizer.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                optimizer.step()
                scheduler.step()
                mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
