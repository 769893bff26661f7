"""A per-epoch learning-rate schedule stepped after every batch."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/scheduler-per-batch"
FRAMEWORK = "torch"
EXPECTED = "LR_TOO_LOW"
DESCRIPTION = ("StepLR(step_size=5, gamma=0.1) was meant per epoch but is stepped per batch: "
               "after 20 steps the learning rate is 10,000 times smaller and training stalls.")
FIX = "Call scheduler.step() once per epoch (or size the schedule in batches)."
STEPS = 120


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.1)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            scheduler.step()   # BUG: a per-epoch schedule stepped every batch
            mon.step(loss)
    return mon
