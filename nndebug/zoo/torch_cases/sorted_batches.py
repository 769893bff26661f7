"""Data sorted by class and never shuffled: every batch holds a single digit."""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/sorted-batches"
FRAMEWORK = "torch"
EXPECTED = "LOSS_OSCILLATING"
DESCRIPTION = ("The training set is sorted by label and read in order: the model learns to "
               "answer the current digit, then the next class arrives and the loss jumps. "
               "The curve swings instead of falling.")
FIX = "Shuffle the training set every epoch (DataLoader(shuffle=True))."
STEPS = 200


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    order = np.argsort(y, kind="stable")
    x, y = x[order], y[order]
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=32, shuffle=False):   # BUG: sorted, unshuffled
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
