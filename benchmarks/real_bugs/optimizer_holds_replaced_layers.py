"""Layers replaced after the optimizer was built: the optimizer updates the old tensors.

Reported: "The parameters are not updated when the pruned model is finetuned" -
https://github.com/microsoft/nni/issues/4521 ("the parameters registered in the optimizer
are outdated ... an easy way is reinitializing a new optimizer"). Here the classifier
head is swapped for a new one (as speed-up/pruning tools do) after the optimizer exists.
Fix: build the optimizer after the model is final.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "The parameters are not updated when the pruned model is finetuned"
LINK = "https://github.com/microsoft/nni/issues/4521"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    model[2] = nn.Linear(64, 10)               # the pruning tool's replacement layer
    if fixed:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    # BUG when not fixed: the optimizer still holds the replaced layer's tensors
    loss_fn = nn.CrossEntropyLoss()
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
