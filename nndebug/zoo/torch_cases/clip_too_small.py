"""Gradient clipping with a max norm a thousand times too small."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/clip-too-small"
FRAMEWORK = "torch"
EXPECTED = "LR_TOO_LOW"
DESCRIPTION = ("clip_grad_norm_(max_norm=1e-4) shrinks every gradient to a ten-thousandth of "
               "its size: the effective learning rate is tiny and the loss barely moves.")
FIX = "Clip at the 90th percentile of the observed gradient norms (watch's report shows them)."
STEPS = 120


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
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=1e-4)   # BUG: far too small
            optimizer.step()
            mon.step(loss)
    return mon
