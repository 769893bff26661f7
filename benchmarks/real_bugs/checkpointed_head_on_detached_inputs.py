"""An auxiliary prediction head reads the backbone's features DETACHED (the auxiliary loss is
not meant to move the backbone, and detaching keeps its graph small), and the head is run
under reentrant activation checkpointing to save memory. A reentrant checkpoint builds a
graph for its block only when one of its tensor inputs requires grad; the detached
features do not, so the head's own parameters never get a gradient: its loss is computed,
added to the total, printed every step - and never moves.

Reported: "[Fix] Preserve MTP gradients with detached checkpoint inputs" -
https://github.com/InternLM/xtuner/pull/2048 ("When MTP detaches both its backbone inputs and
LM-head inputs, the reentrant checkpoint receives no tensor requiring gradients. PyTorch
then skips checkpoint replay, so the MTP loss can be non-zero while all trainable MTP
parameters keep grad=None"; fixed by feeding the checkpoint a tensor that requires grad).
Here a digits MLP with its main 10-way head and an auxiliary two-layer head that predicts
whether the digit is odd from the detached hidden features, summed into one loss. Fix:
``use_reentrant=False`` (or do not checkpoint a block whose inputs are all detached).

Measured (200 steps, 360 held-out digits): the auxiliary head's held-out accuracy 0.46 with
the bug (chance), 0.90 for the fixed twin; the main head 0.86 in both.
"""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from benchmarks.real_bugs._common import batches, classification

TITLE = "[Fix] Preserve MTP gradients with detached checkpoint inputs"
LINK = "https://github.com/InternLM/xtuner/pull/2048"
EXPECTED = ("NO_GRADIENT",)
STEPS = 200
HELD_OUT = 360


class Model(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.head = nn.Linear(64, 10)
        self.aux_head = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 2))
        self.reentrant = not fixed

    def forward(self, x):
        features = self.backbone(x)
        aux = checkpoint(self.aux_head, features.detach(),
                         use_reentrant=self.reentrant)   # BUG: reentrant on detached input
        return self.head(features), aux


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = Model(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            optimizer.zero_grad()
            logits, aux = model(xb)
            loss = nn.functional.cross_entropy(logits, yb) \
                + nn.functional.cross_entropy(aux, yb % 2)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        logits, aux = model(x[-HELD_OUT:])
    mon.accuracy = round(float((logits.argmax(1) == y[-HELD_OUT:]).float().mean()), 3)
    mon.aux_accuracy = round(float((aux.argmax(1) == y[-HELD_OUT:] % 2).float().mean()), 3)
    return mon
