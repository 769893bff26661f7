"""Softmax fed into CrossEntropyLoss, which applies (log-)softmax again."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/double-softmax"
FRAMEWORK = "torch"
EXPECTED = "DOUBLE_SOFTMAX"
DESCRIPTION = ("The model ends in nn.Softmax and the loss is nn.CrossEntropyLoss, which expects "
               "logits: probabilities in [0, 1] are squashed a second time, the gradients are "
               "tiny and the loss cannot go below ~1.5.")
FIX = "Remove the final nn.Softmax; apply softmax only when you want probabilities for predictions."
STEPS = 150


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10),
                          nn.Softmax(dim=1))   # BUG: CrossEntropyLoss applies softmax itself
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
