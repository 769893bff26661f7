"""NaN values in the data (a missing value nobody cleaned)."""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/nan-inputs"
FRAMEWORK = "torch"
EXPECTED = "NAN_IN_INPUTS"
DESCRIPTION = ("A few samples carry a NaN pixel (a missing value). The first batch that holds "
               "one makes the loss NaN, and the update after it makes every weight NaN.")
FIX = "Clean or impute missing values before training (nndebug.check_data finds them)."
STEPS = 60


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    x = x.copy()
    x[np.random.default_rng(0).choice(len(x), 20, replace=False), 5] = np.nan   # BUG: missing values
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
