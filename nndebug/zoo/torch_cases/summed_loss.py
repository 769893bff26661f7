"""reduction='sum' over a big batch multiplies the effective learning rate by the batch size."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/summed-loss"
FRAMEWORK = "torch"
EXPECTED = "LR_TOO_HIGH"
DESCRIPTION = ("The loss sums over a batch of 256 instead of averaging: gradients are 256x "
               "larger, so a learning rate tuned for a mean loss is 256x too high.")
FIX = "Use reduction='mean' (the default), or divide the learning rate by the batch size."
STEPS = 80


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss(reduction="sum")   # BUG: summed, not averaged
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=256):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
