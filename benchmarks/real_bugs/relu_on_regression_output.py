"""A ReLU after the last layer of a regression network: the output dies at 0.

Reported: "Do not use ReLU activation for the final regression layer" -
https://github.com/ProteomicsML/ProteomicsML/pull/203 ("I got LSTM network returning
constantly 0 ... the (pre-ReLU) output of the final linear layer can be always or almost
always negative vanishing the gradient"). The unlucky initialisation is reproduced by the
seed: with torch.manual_seed(15) the last layer's pre-activation is negative for every
sample from the start (2 of the seeds 0-39 give that; several more come close).
Fix: no activation after the last Linear.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, regression

TITLE = "Do not use ReLU activation for the final regression layer"
LINK = "https://github.com/ProteomicsML/ProteomicsML/pull/203"
EXPECTED = ("DEAD_RELU", "TARGETS_OUTSIDE_OUTPUT_RANGE")
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(15)
    x, y = regression()
    layers = [nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, 1)]
    if not fixed:
        layers.append(nn.ReLU())             # BUG: the output can never be negative, and dies
    model = nn.Sequential(*layers)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb).squeeze(1), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
