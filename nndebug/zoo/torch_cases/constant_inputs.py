"""An indexing bug feeds the same sample as the whole batch."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import digits

NAME = "torch/constant-inputs"
FRAMEWORK = "torch"
EXPECTED = "CONSTANT_INPUTS"
DESCRIPTION = ("The batch is built with x[start] (one row, broadcast) instead of "
               "x[start:start + 64]: the network sees 64 copies of one image paired with 64 "
               "different labels.")
FIX = "Slice the batch (x[start:start + batch_size]); check a batch's shape and variety once."
STEPS = 80


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            start = (step * 64) % (len(x) - 64)
            xb = x[start].expand(64, -1)   # BUG: one sample repeated, not a slice of 64
            yb = y[start:start + 64]
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
