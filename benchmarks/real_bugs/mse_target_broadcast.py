"""Regression output (N, 1) against a target (N,) in MSELoss: the loss broadcasts to (N, N).

Reported: "Using a target size ... that is different to the input size" -
https://github.com/deepset-ai/FARM/issues/229 (a regression head; torch's UserWarning in
the middle of the progress bar; fixed by matching the shapes in
https://github.com/deepset-ai/FARM/pull/230). Every output is compared with every target,
so the model learns to predict the mean: the loss falls a little, the predictions carry no
information. Fix: make output and target the same shape (squeeze the output).
"""
import warnings

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, regression

TITLE = "Using a target size ... that is different to the input size"
LINK = "https://github.com/deepset-ai/FARM/issues/229"
EXPECTED = ("LOSS_SHAPE_MISMATCH",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = regression()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()
    with warnings.catch_warnings():       # the case must not change the caller's filters
        warnings.simplefilter("default")
        with nd.watch(model, optimizer, **watch) as mon:
            for xb, yb in batches(x, y, steps):
                optimizer.zero_grad()
                output = model(xb)               # (N, 1)
                if fixed:
                    output = output.squeeze(1)   # the fix: (N,) like the target
                loss = loss_fn(output, yb)       # BUG when not fixed: (N, 1) vs (N,) -> (N, N)
                loss.backward()
                optimizer.step()
                mon.step(loss)
    return mon
