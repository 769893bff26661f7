"""optimizer.step() is never called: gradients are computed and thrown away."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/forgotten-step"
FRAMEWORK = "torch"
EXPECTED = "PARAMS_NOT_UPDATING"
DESCRIPTION = ("The loop computes the loss and its gradients, but optimizer.step() was lost in "
               "a refactoring: the weights never change and the loss stays flat.")
FIX = "Call optimizer.step() after loss.backward()."
STEPS = 80


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            # BUG: optimizer.step() is missing
            mon.step(loss)
    return mon
