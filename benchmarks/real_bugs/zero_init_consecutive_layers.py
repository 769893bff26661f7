"""Two consecutive layers initialised to zero: the first one's output is zero, so the
second gets no gradient for its weight, and the second's zero weight passes no gradient
back to the first. Both weights stay zero for ever; only the last bias learns (the class
prior).

Reported: "About zero initialization" - https://github.com/yz93/LAVT-RIS/issues/25 (the
gate's ``nn.init.zeros_`` on two layers in a row; the reporter's check prints an all-zero
gradient for the first layer, and removing the first ``zeros_`` makes it learn). Fix: the
default initialisation for the first layer (only the last one zero, as intended).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "About zero initialization"
LINK = "https://github.com/yz93/LAVT-RIS/issues/25"
EXPECTED = ("NO_GRADIENT", "PARAMS_NOT_UPDATING", "DEAD_RELU", "COLLAPSED_ACTIVATIONS")
STEPS = 120


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, 10))
    with torch.no_grad():
        if not fixed:
            nn.init.zeros_(model[2].weight)              # BUG: this one too
            nn.init.zeros_(model[2].bias)
        nn.init.zeros_(model[4].weight)                  # intended: a zero last layer
        nn.init.zeros_(model[4].bias)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
