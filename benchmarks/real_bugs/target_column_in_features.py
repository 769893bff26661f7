"""The target column is also listed among the input columns: the network learns to copy it,
the training loss falls to almost nothing, and the model is useless where the target is
not known.

Reported: "The target variable leaks the results...." -
https://github.com/pytorch-tabular/pytorch_tabular/issues/21 ("The neural network just
copies the value from result"; the reporter: "it was also in the num_cols"). Here an MLP
regresses the digit's value (standardised) from the 64 pixel columns, with the target
column appended to them. Fix: leave the target out of the input columns.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, regression

TITLE = "The target variable leaks the results...."
LINK = "https://github.com/pytorch-tabular/pytorch_tabular/issues/21"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = regression()
    if not fixed:
        x = torch.cat([x, y[:, None]], dim=1)    # BUG: the target among the input columns
    model = nn.Sequential(nn.Linear(x.shape[1], 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb).squeeze(1), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
