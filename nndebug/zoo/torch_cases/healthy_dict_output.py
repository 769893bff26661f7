"""Healthy: a model with two heads returning a dict, trained on a summed loss."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/healthy-dict-output"
FRAMEWORK = "torch"
EXPECTED = None
DESCRIPTION = ("A shared trunk used by two heads (the digit, and whether it is even) that "
               "returns a dict; the trunk layer is called once, the activation module twice.")
FIX = "Nothing to fix."
STEPS = 120


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(64, 64)
        self.act = nn.ReLU()          # one module object used twice in forward
        self.mid = nn.Linear(64, 64)
        self.digit = nn.Linear(64, 10)
        self.parity = nn.Linear(64, 2)

    def forward(self, x):
        h = self.act(self.mid(self.act(self.trunk(x))))
        return {"digit": self.digit(h), "parity": self.parity(h)}


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = TwoHeads()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            out = model(xb)
            loss = loss_fn(out["digit"], yb) + loss_fn(out["parity"], yb % 2)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
