"""Softmax on the logits before CrossEntropyLoss, which applies log-softmax itself.

Reported: "Double-softmax in validation loss" - https://github.com/ariecattan/SciCo/issues/2
("This bounds the minimum possible loss per example to roughly 0.74"; also
https://github.com/bowang-lab/Transformer-GCN-QA/pull/32). Fix: give raw logits to the loss.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Double-softmax in validation loss"
LINK = "https://github.com/ariecattan/SciCo/issues/2"
EXPECTED = ("DOUBLE_SOFTMAX",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            logits = model(xb)
            scores = logits if fixed else torch.softmax(logits, dim=1)   # BUG: softmax twice
            loss = loss_fn(scores, yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
