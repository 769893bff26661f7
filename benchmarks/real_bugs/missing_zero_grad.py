"""optimizer.zero_grad() never called: every step adds all earlier gradients again.

Reported: "[fix bug] add optimizer.zero_grad() in kws/utils/executor.py" -
https://github.com/wenet-e2e/wekws/pull/73 ("when optimizer.step() is called,
optimizer.zero_grad() is not called"). Fix: zero the gradients once per step.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "[fix bug] add optimizer.zero_grad() in kws/utils/executor.py"
LINK = "https://github.com/wenet-e2e/wekws/pull/73"
EXPECTED = ("GRADIENTS_ACCUMULATING",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            if fixed:
                optimizer.zero_grad()        # BUG when not fixed: this line was missing
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
