"""A Lightning-style ``training_step`` that logs its loss but does not return it: the
trainer takes the ``None`` for "skip this batch", so nothing is ever backpropagated or
stepped, while the logged loss keeps printing.

Reported: "Is training happening?" - https://github.com/graviraja/MLOps-Basics/issues/14
(``training_step`` computes the loss and calls ``self.log`` without ``return loss``;
Lightning warns "training_step returned None" and skips the batch; fixed by returning the
loss). Here a small trainer does what Lightning's automatic optimisation does with the
step's result. Fix: ``return loss``.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Is training happening?"
LINK = "https://github.com/graviraja/MLOps-Basics/issues/14"
EXPECTED = ("NO_GRADIENT", "NO_OPTIMIZER_STEP", "PARAMS_NOT_UPDATING")
STEPS = 120


class DigitsModule(nn.Module):
    """A LightningModule in spirit: the model and its training step in one class."""

    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.net = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
        self.logged = {}

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_index):
        xb, yb = batch
        loss = nn.functional.cross_entropy(self(xb), yb)
        self.logged["train_loss"] = loss.detach()        # self.log("train_loss", loss)
        return loss if self.fixed else None              # BUG: the loss is not returned


def fit(module, optimizer, data, mon):
    """What a trainer's automatic optimisation does with each training step's result."""
    for index, batch in enumerate(data):
        optimizer.zero_grad()
        loss = module.training_step(batch, index)
        if loss is not None:                             # None means: skip this batch
            loss.backward()
            optimizer.step()
        mon.step(module.logged["train_loss"])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    module = DigitsModule(fixed)
    optimizer = torch.optim.Adam(module.parameters(), lr=1e-3)
    with nd.watch(module, optimizer, **watch) as mon:
        fit(module, optimizer, batches(x, y, steps), mon)
    return mon
