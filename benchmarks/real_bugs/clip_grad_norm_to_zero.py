"""Gradient clipping given a maximum norm of 0 (a config's "0 = no clipping"):
clip_grad_norm_ scales every gradient by 0 / norm, so the optimizer steps with zeros and
no parameter moves, while backward delivers healthy gradients on every step.

Reported: "fix(training): refuse an on-policy gradient-norm clip the update cannot honor" -
https://github.com/strands-labs/robots/pull/2028 ("max_grad_norm 0 / 0.0 ... clip_grad_norm_
... [0.0, 0.0] ... train() success ... 0 of 34,701 parameters moved"). Here a digits MLP
trained with SGD and momentum. Fix: clip only when a positive maximum norm is configured.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "fix(training): refuse an on-policy gradient-norm clip the update cannot honor"
LINK = "https://github.com/strands-labs/robots/pull/2028"
EXPECTED = ("GRADIENTS_CLIPPED_AWAY",)
STEPS = 150
MAX_GRAD_NORM = 0.0      # the config's value, meant as "no clipping"


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            if not fixed or MAX_GRAD_NORM > 0:       # BUG when not fixed: clips to norm 0
                nn.utils.clip_grad_norm_(model.parameters(), MAX_GRAD_NORM)
            optimizer.step()
            mon.step(loss)
    return mon
