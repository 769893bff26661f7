"""A sigmoid at the end of the model, and BCEWithLogitsLoss applies another one.

Reported: "Do not need sigmoid because there is sigmoid in BCEWithLogitsLoss" -
https://github.com/yudi-mars/daisyRec/pull/15 ("Otherwise loss does not converge").
The loss sees sigmoid(sigmoid(z)), squeezed into [0.5, 0.73]: it cannot go near 0 and
its gradients shrink. Fix: drop the model's sigmoid, keep BCEWithLogitsLoss.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, binary

TITLE = "Do not need sigmoid because there is sigmoid in BCEWithLogitsLoss"
LINK = "https://github.com/yudi-mars/daisyRec/pull/15"
EXPECTED = ("DOUBLE_SIGMOID",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = binary()
    layers = [nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1)]
    if not fixed:
        layers.append(nn.Sigmoid())          # BUG: BCEWithLogitsLoss applies the sigmoid itself
    model = nn.Sequential(*layers)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.BCEWithLogitsLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb).squeeze(1), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
