"""Features and labels shuffled with different permutations: labels no longer match inputs.

Reported: "T1 L7 P33 Quiz doesn't verify training set and labels match" -
https://github.com/udacity/sdc-issue-reports/issues/1326 ("you can shuffle the features
and labels separately (different shuffle orders) and still pass the quiz"). The model
can only learn the class frequencies: the loss stays at chance. Fix: one permutation
for both.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "T1 L7 P33 Quiz doesn't verify training set and labels match"
LINK = "https://github.com/udacity/sdc-issue-reports/issues/1326"
EXPECTED = ("LOSS_AT_CHANCE",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    rng = np.random.default_rng(0)
    order = torch.from_numpy(rng.permutation(len(x)))
    x = x[order]
    # BUG when not fixed: the labels get their own, different permutation
    y = y[order] if fixed else y[torch.from_numpy(rng.permutation(len(y)))]
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
