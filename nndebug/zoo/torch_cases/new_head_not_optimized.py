"""Fine-tuning: a new classifier head is attached after the optimizer was built."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/new-head-not-optimized"
FRAMEWORK = "torch"
EXPECTED = "OPTIMIZER_MISSING_PARAMS"
DESCRIPTION = ("The optimizer is created, then the last layer is replaced by a fresh head: the "
               "head gets gradients but is not in the optimizer, so it stays at its random "
               "initialisation.")
FIX = "Create the optimizer after the model is final (or add_param_group the new head)."
STEPS = 80


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 5))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model[2] = nn.Linear(64, 10)   # BUG: the new head is not in the optimizer
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
